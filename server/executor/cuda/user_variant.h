// Users' own kernels on a CUDA device (issue 10): the executor's module cache (compiled and
// loaded modules by sha256, form, options and architecture) and the launcher that calls a user
// kernel with the operation's ABI (kernels/abi.h) under the same harness as catalogue variants.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/internal/v1/executor.pb.h"
#include "kernels/user_kernel_rules.h"
#include "server/executor/compiled_modules.h"
#include "server/executor/cuda/prepared_variant.h"
#include "server/executor/usermodule/launch_config.h"

namespace kbench::executor::cuda {

// One user module loaded in this process's context.
struct LoadedUserModule {
  internal::v1::CompileReply compiled;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  cudaFuncAttributes attributes{};
  // Seconds cudaLibraryLoadData and the kernel lookup took for this job.
  double load_seconds = 0;
};

// Not thread-safe (the executor runs one job at a time). Compiled modules are kept for the
// executor's life within CompiledModules' bounds (a restart after a sticky error starts with
// none); loaded ones only for one
// job: UnloadAll at the end of every job drops the libraries, so a module's __device__ and
// __constant__ data starts fresh in every job and nothing a kernel stored there reaches the next
// job or another owner (issue 23, item 4).
class UserModuleCache {
 public:
  ~UserModuleCache();
  // The owner of the job that starts: its compiles count against its share of the cache.
  void BeginJob(std::string owner) { owner_ = std::move(owner); }
  // Unloads every module loaded since the last call (the end of a job).
  void UnloadAll();
  // Compiles (in a child process, bounded by kernels::kMaxCompileSeconds) unless compiled
  // before, and loads on the current device unless loaded in this job; `*cache_hit` says
  // whether the compile was cached. INVALID_ARGUMENT for
  // code that does not compile or load, or an entry the module lacks.
  absl::StatusOr<const LoadedUserModule*> Get(const v1::UserKernel& kernel,
                                              const kernels::SmArch& arch,
                                              const std::string& scratch_dir,
                                              const std::atomic<bool>* cancelled, bool* cache_hit);

 private:
  CompiledModules compiled_;  // bounded in all and per owner
  std::string owner_;
  std::map<std::string, std::unique_ptr<LoadedUserModule>> loaded_;
};

// The launcher of `kernel` (loaded as `module`) for `problem`: the launch configuration
// evaluated, the dynamic shared memory limit raised when the kernel asks for more than 48 KiB,
// and a record of what is timed for the result. INVALID_ARGUMENT when the launch does not fit
// the compiled kernel (block above its max threads per block).
absl::StatusOr<VariantLauncher> MakeUserLauncher(const LoadedUserModule& module,
                                                 const v1::UserKernel& kernel,
                                                 const kernels::Problem& problem, int device,
                                                 bool cache_hit);

// Pieces of a user kernel's launch, shared with users' collective kernels (user_collective.h):
// OK when `launch` fits the compiled kernel on `device` (threads per block within its limit; the
// dynamic shared memory limit raised there when it asks for more than 48 KiB), INVALID_ARGUMENT
// naming the launch field otherwise; the launch configuration on `stream` (`cluster` holds the
// cluster attribute it may point to); the ABI's scalars (dims, then params); and the record of
// what was timed (VariantResult.user_module), for after the run.
absl::Status FitUserLaunch(const LoadedUserModule& module, const v1::UserKernel& kernel,
                           const usermodule::EvaluatedLaunch& launch, int device);
cudaLaunchConfig_t UserLaunchConfig(const usermodule::EvaluatedLaunch& launch, cudaStream_t stream,
                                    cudaLaunchAttribute* cluster);
std::vector<int64_t> AbiScalars(const kernels::Operation& op, const kernels::Problem& problem);
std::function<void(v1::VariantResult*)> UserModuleDescriber(
    const LoadedUserModule& module, const v1::UserKernel& kernel,
    const usermodule::EvaluatedLaunch& launch, bool cache_hit);

}  // namespace kbench::executor::cuda
