// Evicts the problem's data from the L2 before a cold sample by writing a buffer twice the L2
// size (the write happens outside the timed region; as nvbench's l2flush and Triton's
// do_bench do, it is a write, so the L2 holds the flush buffer's lines afterwards).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "absl/status/status.h"

namespace kbench::executor::cuda {

class L2Flusher {
 public:
  L2Flusher() = default;
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  // Allocates 2 x l2_bytes of device memory.
  absl::Status Init(size_t l2_bytes);
  // Enqueues the flush on `stream` (asynchronous).
  absl::Status Flush(cudaStream_t stream);
  size_t bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  unsigned char value_ = 0;
};

}  // namespace kbench::executor::cuda
