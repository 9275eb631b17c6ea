// The stopping rule's defaults, applied wherever a JobSpec leaves a StoppingCriteria field at
// zero (types.proto documents them): by the executors' sampler, by the scheduler's hang
// deadline, and by kbctl when it shows a job. Header-only, so kbctl can share it.
#pragma once

#include <cstdint>

namespace kbench {

inline constexpr double kDefaultMaxNoise = 0.005;
inline constexpr int64_t kDefaultMinSamples = 10;
inline constexpr double kDefaultMinTimeSeconds = 0.5;
inline constexpr double kDefaultTimeoutSeconds = 15.0;

}  // namespace kbench
