// Compiles (or checks) a user kernel's code into a cubin for one architecture: CUDA C++ with
// NVRTC, PTX with nvJitLink, cubins and Triton cubins as given. Needs no GPU. Called in the
// compile child process (compile_child.h), which bounds its time.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/user_kernel_rules.h"

namespace kbench::executor::usermodule {

struct CompiledModule {
  // Compiler, version, options, arch, sha256, log, the entry's lowered name; kernels' resources
  // read from the cubin (occupancy is the caller's: it knows the launch).
  v1::CompileResult report;
  std::string cubin;  // or fatbin
  std::string ptx;    // CUDA and PTX forms
};

// INVALID_ARGUMENT carrying the compiler's log (with line numbers) for code that does not
// compile, an option that does not apply to the form, or an entry the module lacks;
// RESOURCE_EXHAUSTED when the compiler ran out of memory (its limit: compile_child.h).
absl::StatusOr<CompiledModule> CompileUserKernel(const v1::UserKernel& kernel,
                                                 const kernels::SmArch& arch);

// The toolkit's headers (cuda_fp16.h, CCCL's cub/thrust/cuda::std): NVRTC's only include
// directories; a host whose toolkit lives elsewhere sets KBENCH_CUDA_INCLUDE_DIR.
std::string CudaIncludeDir();
// The directory NVRTC was loaded from (it dlopens libnvrtc-builtins there); empty if unknown.
std::string CompilerLibraryDir();

// Hex sha256 of `bytes`.
std::string Sha256Hex(const std::string& bytes);

}  // namespace kbench::executor::usermodule
