// Test-only cheating CUDA "variants" of square (f32), for the checks of issue 10, item 5: each
// launches through the harness exactly as a catalogue or user kernel does, and each must be
// caught with its reason.
#pragma once

#include "kernels/cuda/cuda_variants.h"

namespace kbench::testing {

// Writes zeros.
absl::Status ZerosLaunch(const kernels::Problem& problem, const kernels::cuda::LaunchArgs& args);
// Copies its input to its output.
absl::Status CopyInputLaunch(const kernels::Problem& problem,
                             const kernels::cuda::LaunchArgs& args);
// Computes on its first launch only, keeping the result in a stash of its own, and copies the
// stash to the output on every later launch: correct when checked first, stale afterwards.
absl::Status FirstLaunchOnlyLaunch(const kernels::Problem& problem,
                                   const kernels::cuda::LaunchArgs& args);
// Starts FirstLaunchOnlyLaunch over (frees its stash): call before each job.
void ResetFirstLaunchOnly();
// Computes only when its output's first element holds the poison (a NaN), i.e. when the
// harness is about to check it; otherwise does nothing: correct in every check, impossibly fast
// while timed.
absl::Status SkipWhenWrittenLaunch(const kernels::Problem& problem,
                                   const kernels::cuda::LaunchArgs& args);

}  // namespace kbench::testing
