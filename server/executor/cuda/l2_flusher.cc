// The L2 flush of cold samples.
#include "server/executor/cuda/l2_flusher.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::executor::cuda {

L2Flusher::~L2Flusher() {
  if (buffer_ != nullptr) cudaFree(buffer_);
}

absl::Status L2Flusher::Init(size_t l2_bytes) {
  bytes_ = 2 * (l2_bytes > 0 ? l2_bytes : (size_t{32} << 20));
  const cudaError_t err = cudaMalloc(&buffer_, bytes_);
  if (err != cudaSuccess) {
    cudaGetLastError();
    buffer_ = nullptr;
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate the ", bytes_, "-byte L2 flush buffer: ", cudaGetErrorName(err)));
  }
  return absl::OkStatus();
}

absl::Status L2Flusher::Flush(cudaStream_t stream) {
  // A different byte each time, so that no layer can skip a write of unchanged contents.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buffer_, ++value_, bytes_, stream));
  return absl::OkStatus();
}

}  // namespace kbench::executor::cuda
