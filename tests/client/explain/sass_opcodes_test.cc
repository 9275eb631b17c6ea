// The SASS opcode histogram of nvdisasm's and cuobjdump's output, and its diff.
#include "client/explain/sass_opcodes.h"

#include "gtest/gtest.h"

namespace kbench::client::explain {
namespace {

// As cuobjdump -sass prints a function: headers, an encoding line after each instruction.
constexpr char kCuobjdump[] = R"sass(
	code for sm_90
		Function : spill_kernel
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                          /* 0x00000a00ff017b82 */
                                                                                   /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                              /* 0x0000000000007919 */
        /*0020*/              @!P0 BRA 0x100 ;                                     /* 0x0000000000008947 */
        /*0030*/                   LDG.E.128 R4, desc[UR4][R2.64] ;                /* 0x0000000402047981 */
        /*0040*/                   STL.64 [R1+0x8], R4 ;                           /* 0x0000080401007387 */
        /*0050*/                   FFMA R4, R4, R5, R6 ;                           /* 0x0000000504047223 */
        /*0060*/                   FFMA R4, R4, R5, R6 ;                           /* 0x0000000504047223 */
        /*0070*/                   EXIT ;                                          /* 0x000000000000794d */
        /*0080*/                   BRA 0x80;                                       /* 0xfffffffc00fc7947 */
		..........
)sass";

// As nvdisasm prints it: a label, predicates, no encoding lines.
constexpr char kNvdisasm[] = R"sass(
.L_x_0:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   LDL R4, [R1+0x8] ;
        /*0020*/               @P1 LDL R5, [R1+0xc] ;
        /*0030*/                   FFMA R4, R4, R5, R6 ;
        /*0040*/                   EXIT ;
)sass";

TEST(SassOpcodeHistogram, CountsCuobjdumpInstructionsWithoutModifiersOrPredicates) {
  const std::map<std::string, int64_t> h = SassOpcodeHistogram(kCuobjdump);
  const std::map<std::string, int64_t> expected = {{"BRA", 2}, {"EXIT", 1}, {"FFMA", 2}, {"LDC", 1},
                                                   {"LDG", 1}, {"S2R", 1},  {"STL", 1}};
  EXPECT_EQ(h, expected);
}

TEST(SassOpcodeHistogram, CountsNvdisasmInstructions) {
  const std::map<std::string, int64_t> h = SassOpcodeHistogram(kNvdisasm);
  const std::map<std::string, int64_t> expected = {
      {"EXIT", 1}, {"FFMA", 1}, {"LDC", 1}, {"LDL", 2}};
  EXPECT_EQ(h, expected);
}

TEST(SassOpcodeHistogram, IsEmptyForTextWithoutInstructions) {
  EXPECT_TRUE(SassOpcodeHistogram("no disassembly here\n/* 0x000fe20000000800 */\n").empty());
}

TEST(DiffOpcodes, ListsTheLargestChangesFirst) {
  const std::vector<v1::OpcodeCountChange> changes =
      DiffOpcodes({{"FFMA", 10}, {"LDG", 4}, {"MOV", 2}},
                  {{"FFMA", 7}, {"LDG", 4}, {"LDL", 24}, {"STL", 24}, {"MOV", 3}});
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(FormatOpcodeChanges(changes, 8), "+24 LDL, +24 STL, -3 FFMA, +1 MOV");
  EXPECT_EQ(changes[2].opcode(), "FFMA");
  EXPECT_EQ(changes[2].baseline(), 10);
  EXPECT_EQ(changes[2].candidate(), 7);
}

TEST(FormatOpcodeChanges, SaysHowManyMoreThereWere) {
  const std::vector<v1::OpcodeCountChange> changes =
      DiffOpcodes({}, {{"A", 5}, {"B", 4}, {"C", 3}, {"D", 2}});
  EXPECT_EQ(FormatOpcodeChanges(changes, 2), "+5 A, +4 B, and 2 more");
}

TEST(DiffOpcodes, IsEmptyForTheSameCode) {
  EXPECT_TRUE(DiffOpcodes(SassOpcodeHistogram(kNvdisasm), SassOpcodeHistogram(kNvdisasm)).empty());
}

}  // namespace
}  // namespace kbench::client::explain
