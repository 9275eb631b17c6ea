// The interconnect's measured peak between a gang's first two ranks, once per multi-GPU job:
// the ceiling a collective's bus bandwidth is read against (VariantResult.collective's
// peak_bus_bytes_per_second).
#pragma once

#include <atomic>

#include "absl/status/statusor.h"
#include "server/executor/cuda/gang.h"

namespace kbench::executor::cuda {

// A large cudaMemcpyPeerAsync from rank 0 to rank 1 and one from rank 1 to rank 0 at the same
// time (each rank sends and receives at once, as in a collective), timed on each rank's events;
// the slower direction's bytes per second, median of a few repetitions after a warm-up.
absl::StatusOr<double> MeasurePeerBandwidth(DeviceGang& gang, const std::atomic<bool>* cancelled);

// Bytes each direction copies: large enough that the copy engines' start-up is under 1% of it.
inline constexpr size_t kPeerCopyBytes = size_t{256} << 20;

}  // namespace kbench::executor::cuda
