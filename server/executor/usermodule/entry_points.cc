// The executor's entry points into users' kernels (declared in server/executor/backend.h).
#include "server/executor/backend.h"
#include "server/executor/usermodule/compile_child.h"
#include "server/executor/usermodule/compile_job.h"

namespace kbench::executor {

absl::StatusOr<JobRun> RunCompileJob(const JobContext& context) {
  return usermodule::RunCompileJob(context);
}

void ConfigureCompileSandbox(const CompileSandboxOptions& options) {
  usermodule::SetCompileSandbox(options);
}

int RunCompileUserKernelChild(int argc, char** argv) {
  return usermodule::RunCompileChild(argc, argv);
}

}  // namespace kbench::executor
