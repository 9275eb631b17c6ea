// kbctl's reading of a user kernel from its flags: the Triton tool's kernel.json (format
// kbench-triton-cubin/1, tools/triton/compile_for_kbench.py) becomes the cubin, num_warps,
// shared memory, trailing scratch pointers and the grid it was compiled for.
#include "client/user_kernel_flags.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kbench::client {
namespace {

class TritonMetadataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kbench_triton_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "softmax.cubin", std::ios::binary) << std::string(
        "\x7f"
        "ELF-bytes",
        10);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  UserKernelFlags Flags(const std::string& json) {
    std::ofstream(dir_ / "kernel.json") << json;
    UserKernelFlags f;
    f.source = (dir_ / "kernel.json").string();
    return f;
  }

  std::filesystem::path dir_;
};

constexpr char kToolOutput[] = R"({
  "format": "kbench-triton-cubin/1", "operation": "softmax", "dtype": "f32",
  "binary": {"kind": "cubin", "path": "softmax.cubin"},
  "entry": "softmax_row", "num_warps": 8, "shared_memory_bytes": 4096,
  "launch": {"grid": ["rows", "1", "1"], "block": [256, 1, 1]},
  "abi": {"scratch_pointers": 2, "divisible_by_16": ["cols"],
          "scratch": [{"name": "global_scratch", "bytes_per_program": 0},
                      {"name": "profile_scratch", "bytes_per_program": 0}]}
})";

TEST_F(TritonMetadataTest, ReadsTheToolsOutput) {
  absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(Flags(kToolOutput));
  ASSERT_TRUE(uk.ok()) << uk.status();
  EXPECT_EQ(uk->form(), v1::USER_KERNEL_FORM_TRITON);
  EXPECT_EQ(uk->code(), std::string("\x7f"
                                    "ELF-bytes",
                                    10));
  EXPECT_EQ(uk->entry(), "softmax_row");
  EXPECT_EQ(uk->triton().num_warps(), 8);
  EXPECT_EQ(uk->triton().shared_bytes(), 4096);
  EXPECT_EQ(uk->triton().trailing_null_pointers(), 2);
  ASSERT_EQ(uk->triton().divisible_by_16_size(), 1);
  EXPECT_EQ(uk->triton().divisible_by_16(0), "cols");
  ASSERT_EQ(uk->launch().grid_size(), 3);
  EXPECT_EQ(uk->launch().grid(0), "rows");
}

TEST_F(TritonMetadataTest, ReadsWhetherItsDimsAreInt32) {
  absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(Flags(kToolOutput));
  ASSERT_TRUE(uk.ok()) << uk.status();
  EXPECT_FALSE(uk->triton().int32_scalars());  // no types given: kbench's int64
  std::string json = kToolOutput;
  const std::string i32 =
      R"("abi": {"params": [{"name": "in", "role": "input", "type": "*fp32"},
                            {"name": "rows", "role": "dim", "type": "i32"},
                            {"name": "cols", "role": "dim", "type": "i32"}],)";
  json.replace(json.find("\"abi\": {"), 8, i32);
  uk = BuildUserKernel(Flags(json));
  ASSERT_TRUE(uk.ok()) << uk.status();
  EXPECT_TRUE(uk->triton().int32_scalars());
  json.replace(json.find("\"i32\"}]"), 5, "\"i64\"");
  uk = BuildUserKernel(Flags(json));
  ASSERT_FALSE(uk.ok());
  EXPECT_NE(uk.status().message().find("must all be i64 or all i32"), std::string::npos)
      << uk.status();
}

TEST_F(TritonMetadataTest, AGridOnTheCommandLineWins) {
  UserKernelFlags f = Flags(kToolOutput);
  f.grid = {"cdiv(rows, 2)"};
  absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(f);
  ASSERT_TRUE(uk.ok()) << uk.status();
  ASSERT_EQ(uk->launch().grid_size(), 1);
  EXPECT_EQ(uk->launch().grid(0), "cdiv(rows, 2)");
}

TEST_F(TritonMetadataTest, RefusesAKernelThatNeedsScratchMemory) {
  std::string json = kToolOutput;
  json.replace(json.find("\"bytes_per_program\": 0"), 22, "\"bytes_per_program\": 64");
  absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(Flags(json));
  ASSERT_FALSE(uk.ok());
  EXPECT_NE(uk.status().message().find("global_scratch"), std::string::npos) << uk.status();
}

// Issue 24: kernel.json's binary path stays inside the file's directory, so a metadata file
// from elsewhere cannot make kbctl read, and send to a server, any other file of the user's.
class TritonBinaryPathTest : public TritonMetadataTest {
 protected:
  // kToolOutput with binary.path set to `path`.
  UserKernelFlags WithBinaryPath(const std::string& path) {
    std::string json = kToolOutput;
    json.replace(json.find("\"softmax.cubin\""), 15, "\"" + path + "\"");
    return Flags(json);
  }
  void ExpectRefused(const std::string& path, const std::string& why) {
    absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(WithBinaryPath(path));
    ASSERT_FALSE(uk.ok()) << path;
    EXPECT_EQ(uk.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(uk.status().message().find(why), std::string::npos) << uk.status();
    EXPECT_NE(uk.status().message().find("cubin path"), std::string::npos) << uk.status();
  }
};

TEST_F(TritonBinaryPathTest, ReadsABinaryInASubdirectory) {
  std::filesystem::create_directories(dir_ / "bin");
  std::filesystem::copy_file(dir_ / "softmax.cubin", dir_ / "bin" / "k.cubin");
  absl::StatusOr<v1::UserKernel> uk = BuildUserKernel(WithBinaryPath("bin/../bin/./k.cubin"));
  ASSERT_TRUE(uk.ok()) << uk.status();
  EXPECT_EQ(uk->code().size(), 10u);
}

TEST_F(TritonBinaryPathTest, RefusesAPathOutOfItsDirectory) {
  std::ofstream(dir_.parent_path() / "kbench_outside.cubin") << "secret";
  ExpectRefused("../kbench_outside.cubin", "outside");
  ExpectRefused("bin/../../kbench_outside.cubin", "outside");
  std::filesystem::remove(dir_.parent_path() / "kbench_outside.cubin");
}

TEST_F(TritonBinaryPathTest, RefusesAnAbsolutePath) {
  ExpectRefused("/etc/passwd", "must be a path relative");
  ExpectRefused((dir_ / "softmax.cubin").string(), "must be a path relative");
}

TEST_F(TritonBinaryPathTest, RefusesASymlinkThatPointsOutside) {
  std::filesystem::create_symlink("/etc/passwd", dir_ / "link.cubin");
  ExpectRefused("link.cubin", "outside");
  std::filesystem::create_directory_symlink("/etc", dir_ / "etc");
  ExpectRefused("etc/passwd", "outside");
  // A symlink that stays inside is followed.
  std::filesystem::create_symlink("softmax.cubin", dir_ / "inside.cubin");
  EXPECT_TRUE(BuildUserKernel(WithBinaryPath("inside.cubin")).ok());
}

}  // namespace
}  // namespace kbench::client
