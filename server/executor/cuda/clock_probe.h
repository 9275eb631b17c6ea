// Estimates the SM clock around a sample: a one-thread kernel counts clock64() cycles across
// a fixed span of %globaltimer nanoseconds (clock64 is per-SM, so the ratio is taken inside one
// kernel on one SM rather than between two kernels that may land on different SMs).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "absl/status/status.h"

namespace kbench::executor::cuda {

class ClockProbe {
 public:
  // Probes per sample: before and after.
  static constexpr int kSlots = 2;
  // Nanoseconds each probe spins; long enough that the timer's granularity and the loop's own
  // latency stay under ~0.5% of the estimate.
  static constexpr uint64_t kWindowNs = 20000;

  ClockProbe() = default;
  ~ClockProbe();
  ClockProbe(const ClockProbe&) = delete;
  ClockProbe& operator=(const ClockProbe&) = delete;

  // Allocates host-mapped result slots.
  absl::Status Init();
  // Enqueues a probe writing into `slot` (cleared first).
  absl::Status Record(cudaStream_t stream, int slot);
  // After the stream has passed the probe: the SM clock it saw, MHz (0 if it did not run).
  double Mhz(int slot) const;

 private:
  // Per slot: nanoseconds elapsed, cycles elapsed.
  volatile unsigned long long* host_ = nullptr;
  unsigned long long* device_ = nullptr;
};

}  // namespace kbench::executor::cuda
