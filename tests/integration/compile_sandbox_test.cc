// Integration (issue 24, item 1): a compile job cannot read kbenchd's files or environment, and
// a compile bomb is stopped by its limit. A real kbenchd on loopback with a marker secret in its
// environment and in files of its data directory (an auth file, beside the SQLite store); every
// attack is refused or fails, and no reply or job error carries the marker or the store's bytes.
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

// Compile jobs need the toolkit's NVRTC (absent from a build without CUDA).
#ifdef KBENCH_TEST_CUDA_TOOLKIT

constexpr char kMarker[] = "kbench-secret-7f3a9c";

// Landlock's ABI on the machine running the test (0: none): what the compile child can do.
int LandlockAbi() {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

// A compile job of `code` followed by a square kernel.
v1::JobSpec CudaCompileSpec(const std::string& code) {
  return CompileSpec(
      "square", v1::USER_KERNEL_FORM_CUDA,
      code + "\nextern \"C\" __global__ void square_kernel(float* x) { x[0] *= x[0]; }\n",
      "square_kernel");
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Nothing of the secrets: the marker (environment, auth file) nor the SQLite store's header.
void ExpectNoSecret(const std::string& text) {
  EXPECT_EQ(text.find(kMarker), std::string::npos) << text;
  EXPECT_EQ(text.find("SQLite format"), std::string::npos) << text;
}

// A kbenchd with the marker in its environment (as a fleet's PGPASSWORD would be) and in an
// auth file of its data directory; the compile child's include directory is `include_dir`
// (KBENCH_CUDA_INCLUDE_DIR, which executors pass on) when given.
class CompileSandbox : public ::testing::Test {
 protected:
  void StartDaemon(std::vector<std::string> args = {}, const std::string& include_dir = "") {
    WriteFile(auth_file(), std::string("token: ") + kMarker + "\n");
    setenv("KBENCH_TEST_SECRET", kMarker, 1);
    setenv("PGPASSWORD", kMarker, 1);
    if (!include_dir.empty()) setenv("KBENCH_CUDA_INCLUDE_DIR", include_dir.c_str(), 1);
    daemon_ = std::make_unique<Daemon>(dir_.path() + "/data", std::move(args));
    unsetenv("KBENCH_TEST_SECRET");
    unsetenv("PGPASSWORD");
    unsetenv("KBENCH_CUDA_INCLUDE_DIR");
  }
  std::string data_dir() const { return dir_.path() + "/data"; }
  std::string auth_file() const {
    std::filesystem::create_directories(data_dir());
    return data_dir() + "/auth.yaml";
  }

  TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(CompileSandbox, IncludesOfDaemonFilesAreRefusedAtSubmitNamingThem) {
  StartDaemon();
  const std::vector<std::pair<std::string, std::string>> attacks = {
      {"#include \"/proc/self/environ\"", "/proc/self/environ"},
      {"#include \"" + auth_file() + "\"", "absolute path"},
      {"#include \"" + data_dir() + "/kbench.db\"", "kbench.db"},
      {"#include <../../../../../../proc/self/environ>", "'..'"},
      {"#define P \"/proc/self/environ\"\n#include P", "computed"},
      {"#define Q(x) #x\n#include Q(/proc/self/environ)", "computed"},
      {"#include __FILE__", "computed"},
      {"#inc\\\nlude \"/proc/self/envi\\\nron\"", "/proc/self/environ"},
      {"# /* x */ include \"/proc/self/environ\"", "absolute path"},
      {"%:include \"/proc/self/environ\"", "absolute path"},
      {"#if __has_include(\"" + auth_file() + "\")\n#endif", "__has_include"},
      {"#pragma GCC dependency \"" + auth_file() + "\"", "read a file"},
      {"_Pragma(\"GCC dependency \\\"/proc/self/environ\\\"\")", "read a file"},
      {"#line 1 \"/proc/self/environ\"", "#line"},
  };
  for (const auto& [code, needle] : attacks) {
    const grpc::Status s = SubmitStatus(*daemon_, CudaCompileSpec(code));
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << code;
    EXPECT_NE(s.error_message().find(needle), std::string::npos) << s.error_message();
    ExpectNoSecret(s.error_message());
  }
}

TEST_F(CompileSandbox, ASourceFileNameWithADirectoryIsRefused) {
  StartDaemon();
  v1::JobSpec spec = CudaCompileSpec("");
  spec.mutable_user_kernels(0)->set_file_name(data_dir() + "/x.cu");
  const grpc::Status s = SubmitStatus(*daemon_, spec);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("file_name"), std::string::npos) << s.error_message();
}

// The pre-scan passes a relative include; the include directory's symlinks lead to the auth
// file and to the compile child's own environment. Landlock (where the kernel has it) refuses
// to open either; its environment holds no secret either way.
TEST_F(CompileSandbox, SymlinksInTheIncludeDirectoryReachNoSecret) {
  const std::string include_dir = dir_.path() + "/include";
  std::filesystem::create_directories(include_dir);
  StartDaemon({}, include_dir);
  std::filesystem::create_symlink(auth_file(), include_dir + "/auth.h");
  std::filesystem::create_symlink("/proc/self/environ", include_dir + "/environ.h");

  const v1::Job auth = RunToEnd(*daemon_, CudaCompileSpec("#include \"auth.h\""));
  ASSERT_EQ(auth.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(auth.error_code(), "INVALID_ARGUMENT") << auth.error();
  if (LandlockAbi() > 0) {
    EXPECT_NE(auth.error().find("auth.h"), std::string::npos) << auth.error();
    ExpectNoSecret(auth.error());
  } else {
    // Without Landlock the symlink is followed: the one hole left (docs/security).
    EXPECT_NE(auth.error().find(kMarker), std::string::npos) << auth.error();
  }
  const v1::Job env = RunToEnd(*daemon_, CudaCompileSpec("#include \"environ.h\""));
  ASSERT_EQ(env.state(), v1::JOB_STATE_FAILED);
  ExpectNoSecret(env.error());
  EXPECT_EQ(env.error().find("PGPASSWORD"), std::string::npos) << env.error();
}

// 2^32 strings of 4000 bytes from 33 macros: NVRTC's memory doubles every second or two (its
// token buffer) until the limit stops it.
std::string MemoryBomb() {
  std::string code = "#define A0 \"" + std::string(4000, 'x') + "\",\n";
  for (int i = 1; i <= 32; ++i) {
    code += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " A" +
            std::to_string(i - 1) + "\n";
  }
  return code + "__device__ char bomb[][4001] = { A32 };\n";
}

TEST_F(CompileSandbox, AMemoryBombIsStoppedByItsMemoryLimit) {
  StartDaemon({"--compile-memory-limit", "1280"});
  const auto start = std::chrono::steady_clock::now();
  const v1::Job job = RunToEnd(*daemon_, CudaCompileSpec(MemoryBomb()));
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "RESOURCE_EXHAUSTED") << job.error();
  EXPECT_NE(job.error().find("1280 MiB memory limit"), std::string::npos) << job.error();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// 2^20 instantiations: NVRTC computes for minutes unless its CPU time is limited.
TEST_F(CompileSandbox, ATemplateBombIsStoppedByItsCpuLimit) {
  StartDaemon({"--compile-cpu-seconds", "2"});
  const v1::Job job = RunToEnd(*daemon_, CudaCompileSpec(R"(
template <int D, int I> struct B {
  static constexpr long long v = B<D - 1, 2 * I>::v + B<D - 1, 2 * I + 1>::v;
};
template <int I> struct B<0, I> { static constexpr long long v = I; };
__device__ long long bomb = B<20, 0>::v;)"));
  ASSERT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_code(), "RESOURCE_EXHAUSTED") << job.error();
  EXPECT_NE(job.error().find("2 s CPU-time limit"), std::string::npos) << job.error();
}

#endif  // KBENCH_TEST_CUDA_TOOLKIT

}  // namespace
}  // namespace kbench::testing
