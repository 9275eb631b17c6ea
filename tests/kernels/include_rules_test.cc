// The include pre-scan (issue 24, item 1) against the attacks a user could try to make the
// compiler read one of kbenchd's files: each attack is one test and must be refused naming it;
// ordinary kernels (toolkit headers, #pragma unroll, strings that merely look like paths in
// comments) pass.
#include "kernels/include_rules.h"

#include <string>

#include "gtest/gtest.h"

namespace kbench::kernels {
namespace {

// Refused as INVALID_ARGUMENT whose message contains `needle`.
void ExpectRefused(const std::string& source, const std::string& needle) {
  const absl::Status s = CheckSourceIncludes(source);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << source;
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(IncludeRules, ToolkitHeadersAndPragmaUnrollPass) {
  EXPECT_TRUE(CheckSourceIncludes(R"(#include <cuda/std/limits>
#include "cuda_fp16.h"
#  include <cub/block/block_reduce.cuh>
#if __has_include(<cuda_bf16.h>)
#endif
#define UNROLL _Pragma("unroll")
#pragma unroll 4
#line 10 "user.cu"
// #include "/proc/self/environ" in a comment is no directive
const char* s = "#include \"/etc/passwd\"";
extern "C" __global__ void k() {}
)")
                  .ok());
}

TEST(IncludeRules, AbsolutePathIsRefusedNamingIt) {
  ExpectRefused("#include \"/proc/self/environ\"\n", "#include \"/proc/self/environ\"");
  ExpectRefused("#include </etc/kbench/auth.json>\n", "absolute path");
}

TEST(IncludeRules, DotDotIsRefusedInQuotesAndAngles) {
  ExpectRefused("#include <../../etc/passwd>\n", "'..'");
  ExpectRefused("#include \"cuda/../../../../var/lib/kbench/kbench.db\"\n", "'..'");
  ExpectRefused("#include \"..\"\n", "'..'");
}

TEST(IncludeRules, MacroIncludeIsRefusedWhateverItExpandsTo) {
  ExpectRefused("#define P \"/proc/self/environ\"\n#include P\n", "computed");
  ExpectRefused("#define P <cuda/std/limits>\n#include P\n", "computed");
}

TEST(IncludeRules, IncludeOfFileMacroIsRefused) {
  ExpectRefused("#include __FILE__\n", "computed");
}

TEST(IncludeRules, LineContinuationsAreJoinedFirst) {
  ExpectRefused("#inc\\\nlude \"/proc/self/environ\"\n", "absolute path");
  ExpectRefused("#include \"/proc/self/env\\\niron\"\n", "/proc/self/environ");
  ExpectRefused("#include \\  \n\"/etc/passwd\"\n", "absolute path");  // blanks after '\'
  ExpectRefused("#include ?\?/\n\"/etc/passwd\"\n", "absolute path");  // the trigraph of '\'
}

TEST(IncludeRules, CommentsBetweenTokensAreOneSpace) {
  ExpectRefused("# /* hidden */ include \"/etc/passwd\"\n", "absolute path");
  ExpectRefused("#include /* spans\nlines */ \"/etc/passwd\"\n", "absolute path");
  ExpectRefused("/* a comment */ # include \"/etc/passwd\"\n", "absolute path");
}

TEST(IncludeRules, DigraphHashIsADirective) {
  ExpectRefused("%:include \"/etc/passwd\"\n", "absolute path");
}

TEST(IncludeRules, IncludeNextImportAndEmbedAreIncludes) {
  ExpectRefused("#include_next \"/etc/passwd\"\n", "#include_next");
  ExpectRefused("#import \"/etc/passwd\"\n", "#import");
  ExpectRefused("#embed \"/proc/self/environ\"\n", "#embed");
  ExpectRefused("import \"/etc/passwd\";\n", "import");
}

TEST(IncludeRules, HasIncludeIsCheckedLiteralAndComputed) {
  ExpectRefused("#if __has_include(\"/var/lib/kbench/auth.json\")\n#endif\n", "__has_include");
  ExpectRefused("#define P \"/etc/passwd\"\n#if __has_include(P)\n#endif\n", "computed");
  ExpectRefused("#if __has_include_next(<../x>)\n#endif\n", "'..'");
}

TEST(IncludeRules, PragmasThatReadFilesAreRefused) {
  ExpectRefused("#pragma GCC dependency \"/etc/passwd\"\n", "read a file");
  ExpectRefused("#pragma include_alias(\"a.h\", \"/etc/passwd\")\n", "read a file");
  ExpectRefused("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n", "read a file");
}

TEST(IncludeRules, ComputedPragmaOperatorIsRefused) {
  ExpectRefused("#define P(x) _Pragma(#x)\nP(GCC dependency \"/etc/passwd\")\n", "_Pragma");
}

TEST(IncludeRules, LineDirectiveNamingAnOutsideFileIsRefused) {
  ExpectRefused("#line 1 \"/etc/passwd\"\n", "#line");
}

TEST(IncludeRules, ARawStringDoesNotHideTheNextDirective) {
  ExpectRefused("const char* s = R\"x(\")x\";\n#include \"/etc/passwd\"\n", "absolute path");
}

TEST(IncludeRules, SourceFileNameHasNoDirectory) {
  EXPECT_TRUE(CheckSourceFileName("my_softmax.cu").ok());
  EXPECT_TRUE(CheckSourceFileName("").ok());
  EXPECT_EQ(CheckSourceFileName("/var/lib/kbench/x.cu").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckSourceFileName("..").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckSourceFileName("a/b.cu").code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kbench::kernels
