// The device's copy bandwidth, measured once when the executor starts: the ceiling that every
// memory-bound result is reported against.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "server/executor/cuda/blocking_kernel.h"

namespace kbench::executor::cuda {

struct CopyBandwidth {
  // Bytes read + bytes written per second (2 x copied bytes / time), median of the runs.
  double bytes_per_second = 0;
  size_t copied_bytes = 0;
  int runs = 0;
  // Relative spread (max - min) / median of the timed runs.
  double spread = 0;
  // The faster of the two ways measured: "cudaMemcpy" (the copy engine) or "copy/vectorized"
  // (the catalogue's copy kernel).
  std::string method;
};

// Copies per timed run: one event pair around several copies queued behind the blocking kernel,
// so that neither the host's ~3 us submission of the first copy nor a gap between copies is
// timed (issue 15, item 3: one copy per event pair measured 2992.9 GB/s against 3004.9 GB/s
// for the same copy in the cold harness, so copies showed up to 101.4% of copy bandwidth).
inline constexpr int kCopiesPerRun = 4;

// Times two device-to-device copies of `bytes` on `stream` with events, cudaMemcpyAsync and the
// catalogue's copy/vectorized kernel, each with a warm-up of at least 200 ms of copies, then
// `runs` timed runs of kCopiesPerRun copies held behind `blocker` until all are queued; the
// faster median time per copy is the ceiling, so no copy reports more than 100% of it. Allocates
// two buffers of `bytes` for the duration.
absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(cudaStream_t stream, BlockingKernel* blocker,
                                                   size_t bytes, int runs);

// The copy size used at executor start: 512 MiB per buffer, less on a device with little free
// memory (a quarter of what is free), so that the copy is far larger than any L2.
size_t DefaultCopyBandwidthBytes(size_t free_bytes);

// The copy size of the L2-resident measurement: a quarter of the L2 per buffer, so that source
// and destination together take half of it and stay there between copies (256 KiB at least).
size_t L2ResidentCopyBytes(size_t l2_bytes);

}  // namespace kbench::executor::cuda
