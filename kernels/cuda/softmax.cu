// softmax's CUDA variants (row-wise, max-subtracted): naive five-kernel, fused block-per-row,
// warp-per-row, and online (single pass for max and sum).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/variant_tables.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels::cuda {
namespace {
namespace {

template <typename T, bool kVec>
using Chunk = RowChunk<T, kVec>;

// ---- naive: five kernels, f32 intermediates in the workspace --------------------------------

constexpr int kRowThreads = 256;

template <typename T>
__global__ void RowMaxKernel(const T* __restrict__ in, float* __restrict__ row_max, int64_t cols) {
  __shared__ float scratch[32];
  const T* x = in + static_cast<int64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, ToFloat(x[c]));
  m = BlockReduce(m, MaxOp{}, scratch);
  if (threadIdx.x == 0) row_max[blockIdx.x] = m;
}

template <typename T>
__global__ void SubtractRowKernel(const T* __restrict__ in, const float* __restrict__ row_max,
                                  float* __restrict__ tmp, int64_t n, int64_t cols) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = ToFloat(in[i]) - row_max[i / cols];
}

__global__ void ExpInPlaceKernel(float* tmp, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) tmp[i] = expf(tmp[i]);
}

__global__ void RowSumKernel(const float* __restrict__ tmp, float* __restrict__ row_sum,
                             int64_t cols) {
  __shared__ float scratch[32];
  const float* x = tmp + static_cast<int64_t>(blockIdx.x) * cols;
  float s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
  s = BlockReduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) row_sum[blockIdx.x] = s;
}

template <typename T>
__global__ void DivideRowKernel(const float* __restrict__ tmp, const float* __restrict__ row_sum,
                                T* __restrict__ out, int64_t n, int64_t cols) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FromFloat<T>(tmp[i] / row_sum[i / cols]);
}

// ---- fused: one block per row, the row held in registers -------------------------------------

// Thread t holds chunks t, t + blockDim, ... of its row: one DRAM read and one write per element.
template <typename T, bool kVec, int kItems, int kMaxThreads>
__global__ void __launch_bounds__(kMaxThreads)
    SoftmaxBlockRowKernel(const T* __restrict__ in, T* __restrict__ out, int64_t cols) {
  using C = Chunk<T, kVec>;
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const int64_t items = cols / C::kE;
  C c[kItems];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int64_t idx = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (idx < items) {
      c[k] = C::Load(x, idx);
#pragma unroll
      for (int e = 0; e < C::kE; ++e) m = fmaxf(m, c[k].get(e));
    }
  }
  m = BlockReduce(m, MaxOp{}, scratch);
  float s = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int64_t idx = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (idx < items) {
#pragma unroll
      for (int e = 0; e < C::kE; ++e) s += __expf(c[k].get(e) - m);
    }
  }
  s = BlockReduce(s, SumOp{}, scratch);
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int64_t idx = threadIdx.x + static_cast<int64_t>(k) * blockDim.x;
    if (idx < items) {
      C o;
#pragma unroll
      for (int e = 0; e < C::kE; ++e) o.set(e, __expf(c[k].get(e) - m) * inv);
      o.Store(y, idx);
    }
  }
}

// Rows too long for registers: three passes over the row, the second and third served from L2.
template <typename T, bool kVec>
__global__ void __launch_bounds__(1024)
    SoftmaxBlockRowLoopKernel(const T* __restrict__ in, T* __restrict__ out, int64_t cols) {
  using C = Chunk<T, kVec>;
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const int64_t items = cols / C::kE;
  float m = -INFINITY;
  for (int64_t i = threadIdx.x; i < items; i += blockDim.x) {
    const C c = C::Load(x, i);
#pragma unroll
    for (int e = 0; e < C::kE; ++e) m = fmaxf(m, c.get(e));
  }
  m = BlockReduce(m, MaxOp{}, scratch);
  float s = 0;
  for (int64_t i = threadIdx.x; i < items; i += blockDim.x) {
    const C c = C::Load(x, i);
#pragma unroll
    for (int e = 0; e < C::kE; ++e) s += __expf(c.get(e) - m);
  }
  s = BlockReduce(s, SumOp{}, scratch);
  const float inv = 1.0f / s;
  for (int64_t i = threadIdx.x; i < items; i += blockDim.x) {
    const C c = C::Load(x, i);
    C o;
#pragma unroll
    for (int e = 0; e < C::kE; ++e) o.set(e, __expf(c.get(e) - m) * inv);
    o.Store(y, i);
  }
}

// ---- warp per row ----------------------------------------------------------------------------

constexpr int kWarpRowThreads = 256;  // 8 rows per block

template <typename T, bool kVec, int kItems>
__global__ void __launch_bounds__(kWarpRowThreads)
    SoftmaxWarpRowKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                         int64_t cols) {
  using C = Chunk<T, kVec>;
  const int lane = threadIdx.x & 31;
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * (kWarpRowThreads / 32) + (threadIdx.x >> 5);
  if (row >= rows) return;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const int64_t items = cols / C::kE;
  C c[kItems];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int64_t idx = lane + 32 * k;
    if (idx < items) {
      c[k] = C::Load(x, idx);
#pragma unroll
      for (int e = 0; e < C::kE; ++e) m = fmaxf(m, c[k].get(e));
    }
  }
  m = WarpReduce(m, MaxOp{});
  float s = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (lane + 32 * k < items) {
#pragma unroll
      for (int e = 0; e < C::kE; ++e) s += __expf(c[k].get(e) - m);
    }
  }
  s = WarpReduce(s, SumOp{});
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int64_t idx = lane + 32 * k;
    if (idx < items) {
      C o;
#pragma unroll
      for (int e = 0; e < C::kE; ++e) o.set(e, __expf(c[k].get(e) - m) * inv);
      o.Store(y, idx);
    }
  }
}

// Rows longer than a warp's registers: the warp loops over its row three times.
template <typename T, bool kVec>
__global__ void __launch_bounds__(kWarpRowThreads)
    SoftmaxWarpRowLoopKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                             int64_t cols) {
  using C = Chunk<T, kVec>;
  const int lane = threadIdx.x & 31;
  const int64_t row =
      static_cast<int64_t>(blockIdx.x) * (kWarpRowThreads / 32) + (threadIdx.x >> 5);
  if (row >= rows) return;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const int64_t items = cols / C::kE;
  float m = -INFINITY;
  for (int64_t i = lane; i < items; i += 32) {
    const C c = C::Load(x, i);
#pragma unroll
    for (int e = 0; e < C::kE; ++e) m = fmaxf(m, c.get(e));
  }
  m = WarpReduce(m, MaxOp{});
  float s = 0;
  for (int64_t i = lane; i < items; i += 32) {
    const C c = C::Load(x, i);
#pragma unroll
    for (int e = 0; e < C::kE; ++e) s += __expf(c.get(e) - m);
  }
  s = WarpReduce(s, SumOp{});
  const float inv = 1.0f / s;
  for (int64_t i = lane; i < items; i += 32) {
    const C c = C::Load(x, i);
    C o;
#pragma unroll
    for (int e = 0; e < C::kE; ++e) o.set(e, __expf(c.get(e) - m) * inv);
    o.Store(y, i);
  }
}

// ---- online: max and sum in one pass ---------------------------------------------------------

// (max, sum of exp(x - max)) pairs merge associatively; an empty pair is (-inf, 0).
struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum Merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

__device__ __forceinline__ MaxSum WarpMerge(MaxSum v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    MaxSum o{__shfl_xor_sync(0xffffffffu, v.m, offset), __shfl_xor_sync(0xffffffffu, v.s, offset)};
    v = Merge(v, o);
  }
  return v;
}

constexpr int kOnlineThreads = 512;

template <typename T, bool kVec>
__global__ void __launch_bounds__(kOnlineThreads)
    SoftmaxOnlineKernel(const T* __restrict__ in, T* __restrict__ out, int64_t cols) {
  using C = Chunk<T, kVec>;
  __shared__ MaxSum scratch[32];
  const int64_t row = blockIdx.x;
  const T* x = in + row * cols;
  T* y = out + row * cols;
  const int64_t items = cols / C::kE;
  MaxSum acc{-INFINITY, 0.0f};
  for (int64_t i = threadIdx.x; i < items; i += kOnlineThreads) {
    const C c = C::Load(x, i);
    float cm = c.get(0);
#pragma unroll
    for (int e = 1; e < C::kE; ++e) cm = fmaxf(cm, c.get(e));
    const float m = fmaxf(acc.m, cm);
    float s = acc.s * __expf(acc.m - m);  // acc.m == -inf gives exp(-inf) = 0
#pragma unroll
    for (int e = 0; e < C::kE; ++e) s += __expf(c.get(e) - m);
    acc = {m, s};
  }
  acc = WarpMerge(acc);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) scratch[warp] = acc;
  __syncthreads();
  acc = lane < kOnlineThreads / 32 ? scratch[lane] : MaxSum{-INFINITY, 0.0f};
  acc = WarpMerge(acc);
  const float m = acc.m;
  const float inv = 1.0f / acc.s;
  for (int64_t i = threadIdx.x; i < items; i += kOnlineThreads) {
    const C c = C::Load(x, i);
    C o;
#pragma unroll
    for (int e = 0; e < C::kE; ++e) o.set(e, __expf(c.get(e) - m) * inv);
    o.Store(y, i);
  }
}

// ---- launch helpers ----------------------------------------------------------------------------

struct RowProblem {
  int64_t rows;
  int64_t cols;
};

RowProblem Rows(const Problem& p) { return {p.dim(0), p.dim(1)}; }

// Rows are 16-byte aligned (and whole packs) when the base is and cols * sizeof(T) is.
template <typename T>
bool VectorRows(const void* in, const void* out, int64_t cols) {
  return Aligned16(in) && Aligned16(out) && (cols * static_cast<int64_t>(sizeof(T))) % 16 == 0;
}

template <typename T, bool kVec, int kItems, int kMaxThreads = 256>
absl::Status LaunchBlockRow(const T* in, T* out, RowProblem rp, int threads, cudaStream_t stream) {
  SoftmaxBlockRowKernel<T, kVec, kItems, kMaxThreads>
      <<<static_cast<unsigned>(rp.rows), threads, 0, stream>>>(in, out, rp.cols);
  KBENCH_CUDA_CHECK_LAUNCH("SoftmaxBlockRowKernel");
  return absl::OkStatus();
}

template <typename T, bool kVec>
absl::Status LaunchFusedT(const T* in, T* out, RowProblem rp, cudaStream_t stream) {
  constexpr int kE = Chunk<T, kVec>::kE;
  const int64_t items = rp.cols / kE;
  // Prefer 256-thread blocks (several rows per SM); grow to 1024 threads x 8 chunks for long rows.
  for (int k : {1, 2, 4, 8}) {
    const int64_t threads = CeilDiv(CeilDiv(items, k), 32) * 32;
    if (threads <= 256) {
      switch (k) {
        case 1:
          return LaunchBlockRow<T, kVec, 1>(in, out, rp, static_cast<int>(threads), stream);
        case 2:
          return LaunchBlockRow<T, kVec, 2>(in, out, rp, static_cast<int>(threads), stream);
        case 4:
          return LaunchBlockRow<T, kVec, 4>(in, out, rp, static_cast<int>(threads), stream);
        default:
          return LaunchBlockRow<T, kVec, 8>(in, out, rp, static_cast<int>(threads), stream);
      }
    }
  }
  // At 1024 threads a thread has 64 registers: 8 chunks of f32 fit, 16-bit types (which need
  // conversion registers) keep 4 chunks, still 32768 elements per row.
  constexpr int kMaxItems = sizeof(T) == 4 ? 8 : 4;
  const int64_t threads = CeilDiv(CeilDiv(items, kMaxItems), 32) * 32;
  if (threads <= 1024) {
    return LaunchBlockRow<T, kVec, kMaxItems, 1024>(in, out, rp, static_cast<int>(threads), stream);
  }
  SoftmaxBlockRowLoopKernel<T, kVec>
      <<<static_cast<unsigned>(rp.rows), 1024, 0, stream>>>(in, out, rp.cols);
  KBENCH_CUDA_CHECK_LAUNCH("SoftmaxBlockRowLoopKernel");
  return absl::OkStatus();
}

template <typename T, bool kVec, int kItems>
absl::Status LaunchWarpRow(const T* in, T* out, RowProblem rp, cudaStream_t stream) {
  const int64_t blocks = CeilDiv(rp.rows, kWarpRowThreads / 32);
  SoftmaxWarpRowKernel<T, kVec, kItems>
      <<<static_cast<unsigned>(blocks), kWarpRowThreads, 0, stream>>>(in, out, rp.rows, rp.cols);
  KBENCH_CUDA_CHECK_LAUNCH("SoftmaxWarpRowKernel");
  return absl::OkStatus();
}

template <typename T, bool kVec>
absl::Status LaunchWarpRowT(const T* in, T* out, RowProblem rp, cudaStream_t stream) {
  constexpr int kE = Chunk<T, kVec>::kE;
  const int64_t items = rp.cols / kE;
  if (items <= 32 * 1) return LaunchWarpRow<T, kVec, 1>(in, out, rp, stream);
  if (items <= 32 * 2) return LaunchWarpRow<T, kVec, 2>(in, out, rp, stream);
  if (items <= 32 * 4) return LaunchWarpRow<T, kVec, 4>(in, out, rp, stream);
  if (items <= 32 * 8) return LaunchWarpRow<T, kVec, 8>(in, out, rp, stream);
  const int64_t blocks = CeilDiv(rp.rows, kWarpRowThreads / 32);
  SoftmaxWarpRowLoopKernel<T, kVec>
      <<<static_cast<unsigned>(blocks), kWarpRowThreads, 0, stream>>>(in, out, rp.rows, rp.cols);
  KBENCH_CUDA_CHECK_LAUNCH("SoftmaxWarpRowLoopKernel");
  return absl::OkStatus();
}

}  // namespace

absl::Status LaunchSoftmaxNaive(const Problem& problem, const LaunchArgs& args) {
  const RowProblem rp = Rows(problem);
  const int64_t n = rp.rows * rp.cols;
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(SoftmaxWorkspaceBytes(problem), problem, args));
  float* tmp = static_cast<float*>(args.workspace);
  float* row_max = tmp + n;
  float* row_sum = row_max + rp.rows;
  const unsigned rows = static_cast<unsigned>(rp.rows);
  const int64_t blocks = CeilDiv(n, kRowThreads);
  if (blocks > kMaxGridX) return absl::InvalidArgumentError("shape: too many elements for naive");
  const unsigned eb = static_cast<unsigned>(blocks);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    RowMaxKernel<T><<<rows, kRowThreads, 0, args.stream>>>(in, row_max, rp.cols);
    KBENCH_CUDA_CHECK_LAUNCH("RowMaxKernel");
    SubtractRowKernel<T><<<eb, kRowThreads, 0, args.stream>>>(in, row_max, tmp, n, rp.cols);
    KBENCH_CUDA_CHECK_LAUNCH("SubtractRowKernel");
    ExpInPlaceKernel<<<eb, kRowThreads, 0, args.stream>>>(tmp, n);
    KBENCH_CUDA_CHECK_LAUNCH("ExpInPlaceKernel");
    RowSumKernel<<<rows, kRowThreads, 0, args.stream>>>(tmp, row_sum, rp.cols);
    KBENCH_CUDA_CHECK_LAUNCH("RowSumKernel");
    DivideRowKernel<T><<<eb, kRowThreads, 0, args.stream>>>(tmp, row_sum, out, n, rp.cols);
    KBENCH_CUDA_CHECK_LAUNCH("DivideRowKernel");
    return absl::OkStatus();
  });
}

absl::Status LaunchSoftmaxFused(const Problem& problem, const LaunchArgs& args) {
  const RowProblem rp = Rows(problem);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    if (VectorRows<T>(in, out, rp.cols)) return LaunchFusedT<T, true>(in, out, rp, args.stream);
    return LaunchFusedT<T, false>(in, out, rp, args.stream);
  });
}

absl::Status LaunchSoftmaxWarpPerRow(const Problem& problem, const LaunchArgs& args) {
  const RowProblem rp = Rows(problem);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    if (VectorRows<T>(in, out, rp.cols)) return LaunchWarpRowT<T, true>(in, out, rp, args.stream);
    return LaunchWarpRowT<T, false>(in, out, rp, args.stream);
  });
}

absl::Status LaunchSoftmaxOnline(const Problem& problem, const LaunchArgs& args) {
  const RowProblem rp = Rows(problem);
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    const unsigned rows = static_cast<unsigned>(rp.rows);
    if (VectorRows<T>(in, out, rp.cols)) {
      SoftmaxOnlineKernel<T, true><<<rows, kOnlineThreads, 0, args.stream>>>(in, out, rp.cols);
    } else {
      SoftmaxOnlineKernel<T, false><<<rows, kOnlineThreads, 0, args.stream>>>(in, out, rp.cols);
    }
    KBENCH_CUDA_CHECK_LAUNCH("SoftmaxOnlineKernel");
    return absl::OkStatus();
  });
}

}  // namespace

CudaVariantTable SoftmaxCudaVariants() {
  return {
      {"softmax", "naive", LaunchSoftmaxNaive},
      {"softmax", "fused", LaunchSoftmaxFused},
      {"softmax", "warp_per_row", LaunchSoftmaxWarpPerRow},
      {"softmax", "online", LaunchSoftmaxOnline},
  };
}

}  // namespace kbench::kernels::cuda
