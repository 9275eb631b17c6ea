// Runs a user kernel's compile in a child process (kbench-executor --compile-user-kernel IN OUT)
// killed at a deadline: NVRTC cannot be interrupted, and a compiler crash or a pathological
// template must not take the executor (and its CUDA context) down (issue 10, item 6).
#pragma once

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kernels/user_kernel_rules.h"
#include "server/executor/backend.h"

namespace kbench::executor::usermodule {

// The limits and the lock every CompileInChild uses from now on (issue 24); the defaults until
// called: 4 GiB, 60 CPU seconds, no lock.
void SetCompileSandbox(const CompileSandboxOptions& options);

// Compiles `kernel` for `arch` in a child, using `scratch_dir` for the request and reply files
// (removed afterwards) and as the child's only writable directory. One compile per host at a
// time: it first waits for the host's compile lock. The child starts with an empty environment
// but for a named list (child_environment.h), under CompileLimits and, where the kernel has
// Landlock, confined to the toolkit and `scratch_dir`. The compile's own failures come back with
// their code (INVALID_ARGUMENT with the log); RESOURCE_EXHAUSTED naming the limit it ran into;
// DEADLINE_EXCEEDED after `timeout_seconds`; CANCELLED when `*cancelled`.
absl::StatusOr<internal::v1::CompileReply> CompileInChild(const v1::UserKernel& kernel,
                                                          const kernels::SmArch& arch,
                                                          const std::string& scratch_dir,
                                                          double timeout_seconds,
                                                          const std::atomic<bool>* cancelled);

// The child's side: `kbench-executor --compile-user-kernel IN OUT`. Reads IN, confines itself
// (Landlock) to the toolkit and OUT's directory, compiles, writes OUT. Returns the exit code.
int RunCompileChild(int argc, char** argv);

}  // namespace kbench::executor::usermodule
