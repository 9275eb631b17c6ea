// Measuring the device-to-device copy bandwidth with events.
#include "server/executor/cuda/copy_bandwidth.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::executor::cuda {

size_t DefaultCopyBandwidthBytes(size_t free_bytes) {
  // 1 GiB, like the largest copies users compare against; far beyond any L2.
  return std::max<size_t>(std::min<size_t>(size_t{1} << 30, free_bytes / 4) & ~size_t{255},
                          size_t{1} << 20);
}

size_t L2ResidentCopyBytes(size_t l2_bytes) {
  return std::max<size_t>(l2_bytes / 4 & ~size_t{255}, size_t{256} << 10);
}

namespace {

// Enqueues one copy on the measuring stream.
using CopyFn = std::function<absl::Status()>;

// One timed run: kCopiesPerRun copies between one event pair, all queued behind the blocker.
absl::StatusOr<double> TimeCopiesBehindBlocker(cudaStream_t stream, BlockingKernel* blocker,
                                               cudaEvent_t start, cudaEvent_t stop,
                                               const CopyFn& copy) {
  // Generous against the host queuing a handful of copies; the blocker gives up after it.
  constexpr double kBlockTimeoutSeconds = 5.0;
  {
    KBENCH_RETURN_IF_ERROR(blocker->Block(stream, kBlockTimeoutSeconds));
    BlockingKernel::ReleaseGuard release(blocker);
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(start, stream));
    for (int c = 0; c < kCopiesPerRun; ++c) KBENCH_RETURN_IF_ERROR(copy());
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop, stream));
  }
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop));
  if (blocker->TimedOut()) {
    return absl::DeadlineExceededError(
        "copy bandwidth: the blocking kernel gave up before the copies were queued");
  }
  float ms = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start, stop));
  return static_cast<double>(ms) * 1e-3 / kCopiesPerRun;
}

// Warm-up, then `runs` timed runs of `copy`: the median seconds per copy and the spread.
absl::StatusOr<std::pair<double, double>> TimeCopier(cudaStream_t stream, BlockingKernel* blocker,
                                                     cudaEvent_t start, cudaEvent_t stop,
                                                     const CopyFn& copy, int runs) {
  // Warm-up: an idle H100 sits at 345 MHz and takes a while to reach its boost clock (measured:
  // a single warm-up copy left the result 2.4% under what copies reach later, docs/benchmarks.md),
  // so copy for at least 200 ms of device time before timing.
  for (float warm_ms = 0; warm_ms < 200.0f;) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(start, stream));
    for (int i = 0; i < 8; ++i) KBENCH_RETURN_IF_ERROR(copy());
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop, stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(stop));
    float ms = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start, stop));
    warm_ms += ms;
  }
  std::vector<double> seconds;
  for (int i = 0; i < runs; ++i) {
    KBENCH_ASSIGN_OR_RETURN(const double one,
                            TimeCopiesBehindBlocker(stream, blocker, start, stop, copy));
    seconds.push_back(one);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds.size() % 2 == 1
                            ? seconds[seconds.size() / 2]
                            : 0.5 * (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]);
  return std::make_pair(median, median > 0 ? (seconds.back() - seconds.front()) / median : 0.0);
}

// The catalogue's own copy kernel (copy/vectorized, f32) of `bytes`: on the H100 it moves data
// ~0.4% faster than the copy engine's cudaMemcpy (docs/benchmarks.md), so a ceiling measured with
// cudaMemcpy alone let a copy kernel report 100.1% of copy bandwidth.
CopyFn CatalogueCopy(void* dst, const void* src, size_t bytes, cudaStream_t stream,
                     const cudaDeviceProp* prop) {
  const kernels::cuda::CudaVariant* variant = kernels::cuda::FindCudaVariant("copy", "vectorized");
  return [=]() -> absl::Status {
    if (variant == nullptr) return absl::InternalError("copy/vectorized is not in the catalogue");
    kernels::Problem problem;
    problem.op = "copy";
    problem.variant = "vectorized";
    problem.shape = {static_cast<int64_t>(bytes / sizeof(float))};
    kernels::cuda::LaunchArgs args;
    args.inputs = {src};
    args.outputs = {dst};
    args.stream = stream;
    args.prop = prop;
    return variant->launch(problem, args);
  };
}

}  // namespace

absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(cudaStream_t stream, BlockingKernel* blocker,
                                                   size_t bytes, int runs) {
  if (runs < 1) return absl::InvalidArgumentError(absl::StrCat("runs must be >= 1, got ", runs));
  bytes -= bytes % 16;  // whole float4s for the copy kernel
  void* src = nullptr;
  void* dst = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  absl::Cleanup release = [&] {
    if (src) cudaFree(src);
    if (dst) cudaFree(dst);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  };
  for (void** p : {&src, &dst}) {
    if (const cudaError_t err = cudaMalloc(p, bytes); err != cudaSuccess) {
      cudaGetLastError();
      return absl::ResourceExhaustedError(absl::StrCat("copy bandwidth: cannot allocate ", bytes,
                                                       " bytes: ", cudaGetErrorName(err)));
    }
  }
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(src, 0x5A, bytes, stream));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&start));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&stop));
  int device = 0;
  cudaDeviceProp prop{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device));
  const std::vector<std::pair<const char*, CopyFn>> copiers = {
      {"cudaMemcpy",
       [=] {
         return kernels::cuda::CudaStatus(
             cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream),
             "cudaMemcpyAsync(device to device)", __FILE__, __LINE__);
       }},
      {"copy/vectorized", CatalogueCopy(dst, src, bytes, stream, &prop)},
  };
  CopyBandwidth bw;
  bw.copied_bytes = bytes;
  bw.runs = runs;
  for (const auto& [name, copy] : copiers) {
    KBENCH_ASSIGN_OR_RETURN(const auto timed, TimeCopier(stream, blocker, start, stop, copy, runs));
    const double rate = timed.first > 0 ? 2.0 * static_cast<double>(bytes) / timed.first : 0;
    if (rate > bw.bytes_per_second) {
      bw.bytes_per_second = rate;
      bw.spread = timed.second;
      bw.method = name;
    }
  }
  return bw;
}

}  // namespace kbench::executor::cuda
