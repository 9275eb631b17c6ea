// The compile child: a fresh process image (exec, not just fork, so that no CUDA context or
// thread state of the executor is inherited) that compiles one kernel and writes a reply file.
#include "server/executor/usermodule/compile_child.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/common/child_environment.h"
#include "server/executor/profile/subprocess.h"
#include "server/executor/sandbox/compile_lock.h"
#include "server/executor/sandbox/landlock.h"
#include "server/executor/usermodule/user_compiler.h"

namespace kbench::executor::usermodule {
namespace {

// Set once by main before any job (SetCompileSandbox); read by every compile after.
CompileSandboxOptions& Sandbox() {
  static CompileSandboxOptions options;
  return options;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::string> SelfPath() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0)
    return absl::InternalError(absl::StrCat("readlink(/proc/self/exe): ", strerror(errno)));
  return std::string(buf, static_cast<size_t>(n));
}

internal::v1::CompileReply Compile(const internal::v1::CompileRequest& request) {
  internal::v1::CompileReply reply;
  absl::StatusOr<kernels::SmArch> arch = kernels::ParseSmArch(request.arch());
  absl::StatusOr<CompiledModule> module =
      arch.ok() ? CompileUserKernel(request.kernel(), *arch) : arch.status();
  if (!module.ok()) {
    reply.set_code(static_cast<int>(module.status().code()));
    reply.set_message(std::string(module.status().message()));
    return reply;
  }
  *reply.mutable_report() = std::move(module->report);
  reply.set_cubin(std::move(module->cubin));
  reply.set_ptx(std::move(module->ptx));
  return reply;
}

// The Landlock wall (where the kernel has it) before the user's source reaches NVRTC.
absl::Status Confine(const std::string& work_dir) {
  const sandbox::FilesystemPolicy policy =
      sandbox::CompilePolicy(work_dir, CudaIncludeDir(), CompilerLibraryDir());
  return sandbox::RestrictFilesystem(policy).status();
}

// The parent's reading of a child that ran into a limit or whose compiler ran out of memory.
absl::Status LimitExceeded(const std::string& limit) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "compile: the compile exceeded ", limit,
      " (the limit for one user kernel: a template or constexpr that grows without bound?)"));
}

}  // namespace

void SetCompileSandbox(const CompileSandboxOptions& options) { Sandbox() = options; }

int RunCompileChild(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: kbench-executor --compile-user-kernel REQUEST REPLY\n");
    return 2;
  }
  // An allocation beyond RLIMIT_AS ends the child with an exit code the parent reads as "the
  // memory limit", not as a crash.
  std::set_new_handler([] { _exit(sandbox::kOutOfMemoryExit); });
  absl::StatusOr<std::string> in = ReadFile(argv[2]);
  internal::v1::CompileRequest request;
  if (!in.ok() || !request.ParseFromString(*in)) {
    std::fprintf(stderr, "kbench-executor: cannot read the compile request %s\n", argv[2]);
    return 2;
  }
  const absl::Status confined = Confine(profile::DirectoryOf(argv[3]));
  if (!confined.ok()) {
    std::fprintf(stderr, "kbench-executor: %s\n", confined.ToString().c_str());
    return 4;  // fail closed: no compile outside the wall where the wall exists
  }
  const absl::Status written = WriteFile(argv[3], Compile(request).SerializeAsString());
  if (!written.ok()) {
    std::fprintf(stderr, "kbench-executor: %s\n", written.ToString().c_str());
    return 3;
  }
  return 0;
}

absl::StatusOr<internal::v1::CompileReply> CompileInChild(const v1::UserKernel& kernel,
                                                          const kernels::SmArch& arch,
                                                          const std::string& scratch_dir,
                                                          double timeout_seconds,
                                                          const std::atomic<bool>* cancelled) {
  internal::v1::CompileRequest request;
  *request.mutable_kernel() = kernel;
  request.set_arch(arch.ToString());
  const std::string in = scratch_dir + "/.compile_request.pb";
  const std::string out = scratch_dir + "/.compile_reply.pb";
  const std::string log = scratch_dir + "/.compile_stderr.txt";
  KBENCH_RETURN_IF_ERROR(WriteFile(in, request.SerializeAsString()));
  struct Cleanup {
    std::vector<std::string> paths;
    ~Cleanup() {
      std::error_code ignored;
      for (const auto& p : paths) std::filesystem::remove(p, ignored);
    }
  } cleanup{{in, out, log}};
  KBENCH_ASSIGN_OR_RETURN(const std::string self, SelfPath());
  const CompileSandboxOptions& options = Sandbox();
  const profile::ChildSetup setup{
      BuildChildEnvironment(ToolEnvironment(scratch_dir), ParentEnvironment()),
      sandbox::CompileLimits(options.memory_bytes, options.cpu_seconds), scratch_dir};
  KBENCH_ASSIGN_OR_RETURN(const sandbox::CompileLock lock,
                          sandbox::CompileLock::Acquire(options.lock_path, cancelled));
  KBENCH_ASSIGN_OR_RETURN(const profile::ProcessResult run,
                          profile::RunProcess({self, "--compile-user-kernel", in, out}, log, log,
                                              timeout_seconds, cancelled, setup));
  if (run.cancelled) return absl::CancelledError("job cancelled while compiling");
  if (!run.exceeded_limit.empty()) return LimitExceeded(run.exceeded_limit);
  if (run.timed_out) {
    return absl::DeadlineExceededError(
        absl::StrCat("compile: the compiler ran longer than ", timeout_seconds,
                     " s and was killed (the limit for one user kernel)"));
  }
  if (!run.ok()) {
    return absl::InternalError(absl::StrCat("compile: the compiler process ended with ",
                                            run.Describe(timeout_seconds), ": ",
                                            profile::FileTail(log, 2000)));
  }
  KBENCH_ASSIGN_OR_RETURN(const std::string bytes, ReadFile(out));
  internal::v1::CompileReply reply;
  if (!reply.ParseFromString(bytes)) return absl::InternalError("compile: unreadable reply");
  if (reply.code() == static_cast<int>(absl::StatusCode::kResourceExhausted)) {
    return LimitExceeded(absl::StrCat("its ", options.memory_bytes >> 20, " MiB memory limit"));
  }
  return reply;
}

}  // namespace kbench::executor::usermodule
