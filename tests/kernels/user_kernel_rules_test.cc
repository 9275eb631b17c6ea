// User-kernel rules: the option allow-list, entry names, architectures and cubin headers.
#include "kernels/user_kernel_rules.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace kbench::kernels {
namespace {

TEST(UserKernelRules, AllowsListedOptions) {
  for (const char* o : {"-O3", "--use_fast_math", "-lineinfo", "-maxrregcount=64", "-DBLOCK=256",
                        "-DUSE_X", "-std=c++20", "--ftz=true", "--fmad=false"}) {
    EXPECT_TRUE(CheckCompilerOption(o).ok()) << o;
  }
}

TEST(UserKernelRules, RefusesOtherOptionsNamingThem) {
  for (const char* o : {"-rdc=true", "-I/etc", "--gpu-architecture=sm_80", "-maxrregcount=4",
                        "-DX=$(id)", "-D1X", "--ftz=maybe", "-include", "-G"}) {
    const absl::Status s = CheckCompilerOption(o);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << o;
    EXPECT_NE(s.message().find(std::string("'") + o + "'"), std::string::npos) << s;
  }
  EXPECT_NE(CheckCompilerOption("-rdc=true").message().find("cudadevrt"), std::string::npos);
}

TEST(UserKernelRules, EntryMustBeAnIdentifier) {
  EXPECT_TRUE(CheckEntryName("softmax_kernel").ok());
  EXPECT_TRUE(CheckEntryName("_Z7softmaxPKfPfll").ok());
  EXPECT_EQ(CheckEntryName("").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckEntryName("1abc").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckEntryName("a b").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckEntryName(std::string(300, 'a')).code(), absl::StatusCode::kInvalidArgument);
}

TEST(UserKernelRules, ParsesArchitectures) {
  absl::StatusOr<SmArch> a = ParseSmArch("sm_90a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->major, 9);
  EXPECT_EQ(a->minor, 0);
  EXPECT_TRUE(a->arch_specific);
  EXPECT_EQ(a->ToString(), "sm_90a");
  EXPECT_EQ(ParseSmArch("sm_100a")->number(), 100);
  EXPECT_EQ(ParseSmArch("sm_86")->ToString(), "sm_86");
  EXPECT_FALSE(ParseSmArch("compute_90").ok());
  EXPECT_FALSE(ParseSmArch("sm_9x").ok());
  EXPECT_EQ(SmArchForComputeCapability("9.0")->ToString(), "sm_90a");
  EXPECT_EQ(SmArchForComputeCapability("8.6")->ToString(), "sm_86");
  EXPECT_FALSE(SmArchForComputeCapability("nine").ok());
}

// A 64-byte ELF header as a CUDA 13 cubin has it.
std::string CubinHeader(int sm, uint16_t type = 2, uint16_t machine = 190) {
  std::string h(64, '\0');
  h[0] = 0x7f;
  h[1] = 'E';
  h[2] = 'L';
  h[3] = 'F';
  h[4] = 2;     // 64-bit
  h[7] = 0x41;  // CUDA OS ABI
  h[8] = 8;     // ABI version: SM in e_flags bits 8..15
  std::memcpy(&h[16], &type, 2);
  std::memcpy(&h[18], &machine, 2);
  const uint32_t flags = 0x6000004u | (static_cast<uint32_t>(sm) << 8);
  std::memcpy(&h[48], &flags, 4);
  return h;
}

TEST(UserKernelRules, ReadsTheCubinArchitectureFromItsElfHeader) {
  absl::StatusOr<ModuleBinaryInfo> info = ReadModuleBinaryInfo(CubinHeader(90));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->sm, 90);
  EXPECT_FALSE(info->fatbin);
  EXPECT_FALSE(info->relocatable);
  EXPECT_EQ(ReadModuleBinaryInfo(CubinHeader(80))->sm, 80);
}

TEST(UserKernelRules, RefusesACubinForAnotherArchitectureNamingBoth) {
  const SmArch hopper = *ParseSmArch("sm_90a");
  EXPECT_TRUE(CheckBinaryForArch(CubinHeader(90), hopper).ok());
  const absl::Status s = CheckBinaryForArch(CubinHeader(80), hopper);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("sm_80"), std::string::npos) << s;
  EXPECT_NE(s.message().find("sm_90a"), std::string::npos) << s;
  // Same major, lower minor runs (sm_80 on an sm_86 device); a higher one does not.
  EXPECT_TRUE(CheckBinaryForArch(CubinHeader(80), *ParseSmArch("sm_86")).ok());
  EXPECT_FALSE(CheckBinaryForArch(CubinHeader(86), *ParseSmArch("sm_80")).ok());
}

TEST(UserKernelRules, RefusesRelocatableObjectsAndNonCubins) {
  const absl::Status rel = CheckBinaryForArch(CubinHeader(90, /*type=*/1), *ParseSmArch("sm_90a"));
  EXPECT_EQ(rel.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rel.message().find("relocatable"), std::string::npos);
  EXPECT_FALSE(ReadModuleBinaryInfo("not an elf file at all, just some text padding it").ok());
  EXPECT_FALSE(ReadModuleBinaryInfo(CubinHeader(90, 2, /*machine=*/62)).ok());  // x86-64
}

TEST(UserKernelRules, AcceptsFatbinsByMagic) {
  std::string fatbin(64, '\0');
  const uint32_t magic = 0xBA55ED50;
  std::memcpy(&fatbin[0], &magic, 4);
  absl::StatusOr<ModuleBinaryInfo> info = ReadModuleBinaryInfo(fatbin);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->fatbin);
}

}  // namespace
}  // namespace kbench::kernels
