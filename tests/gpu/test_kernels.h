// Test-only CUDA "variants" for the harness tests: a plain copy and square (so the harness is
// tested independently of the catalogue's kernels), and kernels that fail on purpose: one
// leaving half the output unwritten, one with an illegal address, one with a bad launch config.
#pragma once

#include "kernels/cuda/cuda_variants.h"

namespace kbench::testing {

// Whether a CUDA device is usable, probed once per process (the first call) and cached, so that
// a GPU test binary run without a device skips every case for the price of one probe.
bool HasCudaDevice();

// f32/f16/bf16: copies ElementCount x dtype bytes.
absl::Status TestCopyLaunch(const kernels::Problem& problem, const kernels::cuda::LaunchArgs& args);
// f32 only: out = in * in.
absl::Status TestSquareLaunch(const kernels::Problem& problem,
                              const kernels::cuda::LaunchArgs& args);
// Copies only the first half of the elements.
absl::Status TestHalfCopyLaunch(const kernels::Problem& problem,
                                const kernels::cuda::LaunchArgs& args);
// Stores through a wild pointer: cudaErrorIllegalAddress, sticky.
absl::Status TestIllegalAddressLaunch(const kernels::Problem& problem,
                                      const kernels::cuda::LaunchArgs& args);
// Launches with 4096 threads per block: a launch error (not sticky).
absl::Status TestBadConfigLaunch(const kernels::Problem& problem,
                                 const kernels::cuda::LaunchArgs& args);

}  // namespace kbench::testing
