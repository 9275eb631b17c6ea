// reduce's CUDA variants: row sums (thread, warp or block per row) and full sums (two-pass and
// single-pass with a last-block ticket). Accumulation in f32, output rounded to the dtype.
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/variant_tables.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels::cuda {
namespace {
namespace {

// The full sums' partials and ticket live in the workspace (ReduceWorkspaceBytes).
constexpr int kMaxPartials = static_cast<int>(kReduceMaxPartials);
constexpr int kThreads = 256;

// Sums chunks i = first, first + step, ... < items of a row with two accumulators (for ILP) that
// are folded into a running total every kFold chunks: a long f32 chain of additions errs by about
// sqrt(length) roundings, so chains stay short (measured: 1 x 1048583 summed in one chain missed
// the 1e-5 tolerance by 3.6x).
constexpr int kFold = 256;

template <typename T, bool kVec>
__device__ __forceinline__ float SumChunks(const T* __restrict__ x, int64_t items, int64_t first,
                                           int64_t step) {
  using C = RowChunk<T, kVec>;
  float total = 0;
  int64_t i = first;
  while (i < items) {
    float s0 = 0, s1 = 0;
    for (int f = 0; f < kFold && i + step < items; ++f, i += 2 * step) {
      const C a = C::Load(x, i);
      const C b = C::Load(x, i + step);
#pragma unroll
      for (int e = 0; e < C::kE; ++e) {
        s0 += a.get(e);
        s1 += b.get(e);
      }
    }
    if (i < items && i + step >= items) {
      const C a = C::Load(x, i);
#pragma unroll
      for (int e = 0; e < C::kE; ++e) s0 += a.get(e);
      i += step;
    }
    total += s0 + s1;
  }
  return total;
}

// One thread per row: thread r walks row r alone; a warp's 32 loads hit 32 rows.
template <typename T>
__global__ void RowSumThreadKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                   int64_t cols) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const T* x = in + r * cols;
  float total = 0;
  for (int64_t c0 = 0; c0 < cols; c0 += 1024) {  // short chains, see SumChunks
    float s = 0;
    const int64_t end = c0 + 1024 < cols ? c0 + 1024 : cols;
    for (int64_t c = c0; c < end; ++c) s += ToFloat(x[c]);
    total += s;
  }
  out[r] = FromFloat<T>(total);
}

template <typename T, bool kVec>
__global__ void __launch_bounds__(kThreads)
    RowSumWarpKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int64_t cols) {
  const int64_t r = static_cast<int64_t>(blockIdx.x) * (kThreads / 32) + (threadIdx.x >> 5);
  if (r >= rows) return;
  const int lane = threadIdx.x & 31;
  float s = SumChunks<T, kVec>(in + r * cols, cols / RowChunk<T, kVec>::kE, lane, 32);
  s = WarpReduce(s, SumOp{});
  if (lane == 0) out[r] = FromFloat<T>(s);
}

template <typename T, bool kVec>
__global__ void __launch_bounds__(kThreads)
    RowSumBlockKernel(const T* __restrict__ in, T* __restrict__ out, int64_t cols) {
  __shared__ float scratch[32];
  const int64_t r = blockIdx.x;
  float s = SumChunks<T, kVec>(in + r * cols, cols / RowChunk<T, kVec>::kE, threadIdx.x, kThreads);
  s = BlockReduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) out[r] = FromFloat<T>(s);
}

// Phase 1 of a full sum: block b sums a grid-strided share of the array into partials[b]. With
// `ticket` (single pass), the last block to finish then adds the partials and writes the result.
template <typename T, bool kVec>
__global__ void __launch_bounds__(kThreads)
    FullSumKernel(const T* __restrict__ in, int64_t n, float* __restrict__ partials,
                  unsigned* ticket, T* __restrict__ out) {
  __shared__ float scratch[32];
  __shared__ bool last;
  using C = RowChunk<T, kVec>;
  const int64_t items = n / C::kE;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  float s = SumChunks<T, kVec>(in, items, static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x,
                               step);
  if (blockIdx.x == 0) {  // the n % kE elements after the last whole chunk
    for (int64_t i = items * C::kE + threadIdx.x; i < n; i += kThreads) s += ToFloat(in[i]);
  }
  s = BlockReduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
  if (ticket == nullptr) return;
  if (threadIdx.x == 0) {
    __threadfence();  // publish the partial before taking a ticket
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // see every other block's partial
  float t = 0;
  for (int i = threadIdx.x; i < static_cast<int>(gridDim.x); i += kThreads) {
    t += static_cast<volatile float*>(partials)[i];
  }
  t = BlockReduce(t, SumOp{}, scratch);
  if (threadIdx.x == 0) out[0] = FromFloat<T>(t);
}

// Phase 2 of the two-pass sum: one block adds the partials in a fixed order.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    SumPartialsKernel(const float* __restrict__ partials, int count, T* __restrict__ out) {
  __shared__ float scratch[32];
  float t = 0;
  for (int i = threadIdx.x; i < count; i += kThreads) t += partials[i];
  t = BlockReduce(t, SumOp{}, scratch);
  if (threadIdx.x == 0) out[0] = FromFloat<T>(t);
}

template <typename T>
bool VectorRows(const void* in, int64_t cols) {
  return Aligned16(in) && (cols * static_cast<int64_t>(sizeof(T))) % 16 == 0;
}

absl::Status LaunchFull(const Problem& problem, const LaunchArgs& args, bool single_pass) {
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(ReduceWorkspaceBytes(problem), problem, args));
  const int64_t n = problem.dim(0) * problem.dim(1);
  float* partials = static_cast<float*>(args.workspace);
  unsigned* ticket = reinterpret_cast<unsigned*>(partials + kMaxPartials);
  // Four 256-thread blocks per SM keep enough loads in flight; never more than the partials.
  KBENCH_ASSIGN_OR_RETURN(const int sms, SmCount(args));
  const int blocks = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>({int64_t{kMaxPartials}, int64_t{sms} * 4, CeilDiv(n, kThreads * 4)})));
  if (single_pass) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(ticket, 0, sizeof(unsigned), args.stream));
  }
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    unsigned* t = single_pass ? ticket : nullptr;
    if (Aligned16(in)) {
      FullSumKernel<T, true><<<blocks, kThreads, 0, args.stream>>>(in, n, partials, t, out);
    } else {
      FullSumKernel<T, false><<<blocks, kThreads, 0, args.stream>>>(in, n, partials, t, out);
    }
    KBENCH_CUDA_CHECK_LAUNCH("FullSumKernel");
    if (!single_pass) {
      SumPartialsKernel<T><<<1, kThreads, 0, args.stream>>>(partials, blocks, out);
      KBENCH_CUDA_CHECK_LAUNCH("SumPartialsKernel");
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status LaunchReduceRowsThread(const Problem& problem, const LaunchArgs& args) {
  const int64_t rows = problem.dim(0), cols = problem.dim(1);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    RowSumThreadKernel<T>
        <<<static_cast<unsigned>(CeilDiv(rows, kThreads)), kThreads, 0, args.stream>>>(
            static_cast<const T*>(args.inputs[0]), static_cast<T*>(args.outputs[0]), rows, cols);
    KBENCH_CUDA_CHECK_LAUNCH("RowSumThreadKernel");
    return absl::OkStatus();
  });
}

absl::Status LaunchReduceRowsWarp(const Problem& problem, const LaunchArgs& args) {
  const int64_t rows = problem.dim(0), cols = problem.dim(1);
  const unsigned blocks = static_cast<unsigned>(CeilDiv(rows, kThreads / 32));
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    if (VectorRows<T>(in, cols)) {
      RowSumWarpKernel<T, true><<<blocks, kThreads, 0, args.stream>>>(in, out, rows, cols);
    } else {
      RowSumWarpKernel<T, false><<<blocks, kThreads, 0, args.stream>>>(in, out, rows, cols);
    }
    KBENCH_CUDA_CHECK_LAUNCH("RowSumWarpKernel");
    return absl::OkStatus();
  });
}

absl::Status LaunchReduceRowsBlock(const Problem& problem, const LaunchArgs& args) {
  const int64_t rows = problem.dim(0), cols = problem.dim(1);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    const unsigned blocks = static_cast<unsigned>(rows);
    if (VectorRows<T>(in, cols)) {
      RowSumBlockKernel<T, true><<<blocks, kThreads, 0, args.stream>>>(in, out, cols);
    } else {
      RowSumBlockKernel<T, false><<<blocks, kThreads, 0, args.stream>>>(in, out, cols);
    }
    KBENCH_CUDA_CHECK_LAUNCH("RowSumBlockKernel");
    return absl::OkStatus();
  });
}

absl::Status LaunchReduceFullTwoPass(const Problem& problem, const LaunchArgs& args) {
  return LaunchFull(problem, args, /*single_pass=*/false);
}

absl::Status LaunchReduceFullSinglePass(const Problem& problem, const LaunchArgs& args) {
  return LaunchFull(problem, args, /*single_pass=*/true);
}

}  // namespace

CudaVariantTable ReduceCudaVariants() {
  return {
      {"reduce", "rows_thread", LaunchReduceRowsThread},
      {"reduce", "rows_warp", LaunchReduceRowsWarp},
      {"reduce", "rows_block", LaunchReduceRowsBlock},
      {"reduce", "full_two_pass", LaunchReduceFullTwoPass},
      {"reduce", "full_single_pass", LaunchReduceFullSinglePass},
  };
}

}  // namespace kbench::kernels::cuda
