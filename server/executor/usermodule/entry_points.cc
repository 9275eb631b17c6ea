// The executor's entry points into users' kernels (declared in server/executor/backend.h).
#include <string>

#include "server/common/logging.h"
#include "server/executor/backend.h"
#include "server/executor/sandbox/landlock.h"
#include "server/executor/usermodule/compile_child.h"
#include "server/executor/usermodule/compile_job.h"

namespace kbench::executor {

absl::StatusOr<JobRun> RunCompileJob(const JobContext& context) {
  return usermodule::RunCompileJob(context);
}

void ConfigureCompileSandbox(const CompileSandboxOptions& options) {
  usermodule::SetCompileSandbox(options);
  // Said once per executor (each compile child is a fresh process that would repeat it).
  const int abi = sandbox::LandlockAbi();
  if (abi == 0) {
    logging::Log(logging::Level::kWarn,
                 "no Landlock in this kernel: compile children run without a file-system wall "
                 "(docs/security/compile-sandbox.md)");
  } else {
    logging::Log(logging::Level::kDebug, "compile children confined by Landlock",
                 {logging::Field("abi", std::to_string(abi))});
  }
}

int RunCompileUserKernelChild(int argc, char** argv) {
  return usermodule::RunCompileChild(argc, argv);
}

}  // namespace kbench::executor
