// The device's copy bandwidth, measured once when the executor starts: the ceiling that every
// memory-bound result is reported against.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "absl/status/statusor.h"

namespace kbench::executor::cuda {

struct CopyBandwidth {
  // Bytes read + bytes written per second (2 x copied bytes / time), median of the runs.
  double bytes_per_second = 0;
  size_t copied_bytes = 0;
  int runs = 0;
  // Relative spread (max - min) / median of the timed runs.
  double spread = 0;
};

// Times cudaMemcpyAsync device-to-device of `bytes` on `stream` with events: a warm-up copy,
// then `runs` timed copies; the median. Allocates two buffers of `bytes` for the duration.
absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(cudaStream_t stream, size_t bytes, int runs);

// The copy size used at executor start: 512 MiB per buffer, less on a device with little free
// memory (a quarter of what is free), so that the copy is far larger than any L2.
size_t DefaultCopyBandwidthBytes(size_t free_bytes);

}  // namespace kbench::executor::cuda
