// Evicts the problem's data from the L2 before a cold sample by moving a buffer twice the L2
// size through it, outside the timed region. kWrite writes the buffer (as nvbench's l2flush and
// Triton's do_bench do), which leaves the L2 full of dirty lines that the timed kernel then
// pays to write back; kRead reads it, which leaves clean lines. kWrite is the default: hot
// and graph samples also start with dirty lines (the previous launch's output), and so do
// kernels in a real program. Measured on an H100 (tests/gpu, 256 MiB f32 copy, medians): cold
// 188.6 us with kWrite, 181.8 us with kRead; hot 187.1 us; graph 186.0 us.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "absl/status/status.h"

namespace kbench::executor::cuda {

enum class FlushKind { kWrite, kRead };

class L2Flusher {
 public:
  L2Flusher() = default;
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  // Allocates 2 x l2_bytes of device memory.
  absl::Status Init(size_t l2_bytes, FlushKind kind);
  // Enqueues the flush on `stream` (asynchronous).
  absl::Status Flush(cudaStream_t stream);
  size_t bytes() const { return bytes_; }
  FlushKind kind() const { return kind_; }

 private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  FlushKind kind_ = FlushKind::kWrite;
  unsigned char value_ = 0;
};

}  // namespace kbench::executor::cuda
