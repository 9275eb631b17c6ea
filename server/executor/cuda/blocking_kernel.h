// Holds a stream with a one-thread kernel spinning on a host-mapped flag, so that the start
// event, the timed launches and the stop event are all queued before the device reaches them:
// host launch latency stays out of the sample (as nvbench's blocking_kernel does). The kernel
// gives up after a timeout so that a host that never releases it cannot hang the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "absl/status/status.h"

namespace kbench::executor::cuda {

class BlockingKernel {
 public:
  BlockingKernel() = default;
  ~BlockingKernel();
  BlockingKernel(const BlockingKernel&) = delete;
  BlockingKernel& operator=(const BlockingKernel&) = delete;

  // Allocates the host-mapped flags.
  absl::Status Init();

  // Enqueues the spinning kernel on `stream`. The caller must call Release() (ReleaseGuard
  // does) before waiting on the stream.
  absl::Status Block(cudaStream_t stream, double timeout_seconds);
  // Lets the spinning kernel finish.
  void Release();
  // After the stream has passed the kernel: whether it stopped waiting because of the timeout.
  bool TimedOut() const;

  // Releases on scope exit, so an early error return never leaves the device spinning.
  class ReleaseGuard {
   public:
    explicit ReleaseGuard(BlockingKernel* k) : k_(k) {}
    ~ReleaseGuard() { k_->Release(); }
    ReleaseGuard(const ReleaseGuard&) = delete;
    ReleaseGuard& operator=(const ReleaseGuard&) = delete;

   private:
    BlockingKernel* k_;
  };

 private:
  // [0]: release flag written by the host; [1]: timed-out flag written by the device.
  volatile int32_t* host_flags_ = nullptr;
  int32_t* device_flags_ = nullptr;
};

}  // namespace kbench::executor::cuda
