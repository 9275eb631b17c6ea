// Users' own kernels on a CUDA device (issue 10): the executor's module cache (compiled and
// loaded modules by sha256, form, options and architecture) and the launcher that calls a user
// kernel with the operation's ABI (kernels/abi.h) under the same harness as catalogue variants.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kernels/user_kernel_rules.h"
#include "server/executor/cuda/prepared_variant.h"

namespace kbench::executor::cuda {

// One user module loaded in this process's context.
struct LoadedUserModule {
  internal::v1::CompileReply compiled;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  cudaFuncAttributes attributes{};
};

// Not thread-safe (the executor runs one job at a time). Modules stay loaded for the executor's
// life; a restart (after a sticky error) starts with an empty cache.
class UserModuleCache {
 public:
  ~UserModuleCache();
  // Compiles (in a child process, bounded by kernels::kMaxCompileSeconds) and loads on the
  // current device, or returns the cached module; `*cache_hit` says which. INVALID_ARGUMENT for
  // code that does not compile or load, or an entry the module lacks.
  absl::StatusOr<const LoadedUserModule*> Get(const v1::UserKernel& kernel,
                                              const kernels::SmArch& arch,
                                              const std::string& scratch_dir,
                                              const std::atomic<bool>* cancelled, bool* cache_hit);

 private:
  std::map<std::string, std::unique_ptr<LoadedUserModule>> modules_;
};

// The launcher of `kernel` (loaded as `module`) for `problem`: the launch configuration
// evaluated, the dynamic shared memory limit raised when the kernel asks for more than 48 KiB,
// and a record of what is timed for the result. INVALID_ARGUMENT when the launch does not fit
// the compiled kernel (block above its max threads per block).
absl::StatusOr<VariantLauncher> MakeUserLauncher(const LoadedUserModule& module,
                                                 const v1::UserKernel& kernel,
                                                 const kernels::Problem& problem, int device,
                                                 bool cache_hit);

}  // namespace kbench::executor::cuda
