// The elementwise kernels shared by copy, square, add and gelu: a 16-byte vectorized kernel
// (the fast path), a one-element-per-thread kernel and a grid-stride kernel, each applying a
// functor `op(x)` or `op(x, y)` computed in float.
#pragma once

#include <algorithm>

#include "kernels/cuda/common.cuh"

namespace kbench::kernels::cuda {

constexpr int kElementwiseThreads = 256;
// Packs per thread in the vectorized kernel: 4 x 16 bytes in flight per thread and input hides
// DRAM latency with 256-thread blocks (bytes in flight ~ bandwidth x latency; HOPPER.md).
constexpr int kElementwiseUnroll = 4;

template <int kInputs, typename T, typename Op>
__device__ __forceinline__ float Apply(const Op& op, const T* a, const T* b, int64_t i) {
  if constexpr (kInputs == 1) {
    (void)b;
    return op(ToFloat(a[i]));
  } else {
    return op(ToFloat(a[i]), ToFloat(b[i]));
  }
}

// Each thread loads kElementwiseUnroll 16-byte packs of each input before computing, then
// stores; a block covers a contiguous span. The last block also does the tail of n % kN
// elements. Needs 16-byte aligned pointers.
template <int kInputs, typename T, typename Op>
__global__ void __launch_bounds__(kElementwiseThreads)
    VectorizedElementwiseKernel(const T* __restrict__ a, const T* __restrict__ b,
                                T* __restrict__ out, int64_t n, Op op) {
  constexpr int kN = Pack<T>::kN;
  const int64_t packs = n / kN;
  const int64_t base =
      static_cast<int64_t>(blockIdx.x) * kElementwiseThreads * kElementwiseUnroll + threadIdx.x;
  Pack<T> pa[kElementwiseUnroll], pb[kElementwiseUnroll];
#pragma unroll
  for (int u = 0; u < kElementwiseUnroll; ++u) {
    const int64_t idx = base + static_cast<int64_t>(u) * kElementwiseThreads;
    if (idx < packs) {
      pa[u] = LoadPack(a, idx);
      if constexpr (kInputs == 2) pb[u] = LoadPack(b, idx);
    }
  }
#pragma unroll
  for (int u = 0; u < kElementwiseUnroll; ++u) {
    const int64_t idx = base + static_cast<int64_t>(u) * kElementwiseThreads;
    if (idx < packs) {
      Pack<T> r;
#pragma unroll
      for (int e = 0; e < kN; ++e) {
        if constexpr (kInputs == 1) {
          r.set(e, op(pa[u].get(e)));
        } else {
          r.set(e, op(pa[u].get(e), pb[u].get(e)));
        }
      }
      StorePack(out, idx, r);
    }
  }
  if (blockIdx.x == gridDim.x - 1) {
    for (int64_t i = packs * kN + threadIdx.x; i < n; i += kElementwiseThreads) {
      out[i] = FromFloat<T>(Apply<kInputs>(op, a, b, i));
    }
  }
}

// One element per thread, no loop: the first kernel everyone writes.
template <int kInputs, typename T, typename Op>
__global__ void OneElementPerThreadKernel(const T* __restrict__ a, const T* __restrict__ b,
                                          T* __restrict__ out, int64_t n, Op op) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FromFloat<T>(Apply<kInputs>(op, a, b, i));
}

// A grid sized to fill the device once; each thread strides over the array.
template <int kInputs, typename T, typename Op>
__global__ void GridStrideKernel(const T* __restrict__ a, const T* __restrict__ b,
                                 T* __restrict__ out, int64_t n, Op op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = FromFloat<T>(Apply<kInputs>(op, a, b, i));
  }
}

enum class ElementwiseKind { kVectorized, kOnePerThread, kGridStride };

// Enqueues out = op(a[, b]) over n elements. The vectorized kind falls back to the grid-stride
// kernel when a pointer is not 16-byte aligned (a buffer offset by a caller), so any buffer works.
template <int kInputs, typename T, typename Op>
absl::Status LaunchElementwise(ElementwiseKind kind, const T* a, const T* b, T* out, int64_t n,
                               Op op, const LaunchArgs& args) {
  if (n <= 0) return absl::OkStatus();
  const bool aligned = Aligned16(a) && Aligned16(out) && (kInputs == 1 || Aligned16(b));
  if (kind == ElementwiseKind::kVectorized && !aligned) kind = ElementwiseKind::kGridStride;
  switch (kind) {
    case ElementwiseKind::kVectorized: {
      const int64_t packs = n / Pack<T>::kN;
      const int64_t blocks =
          std::max<int64_t>(1, CeilDiv(packs, int64_t{kElementwiseThreads} * kElementwiseUnroll));
      VectorizedElementwiseKernel<kInputs, T, Op>
          <<<static_cast<unsigned>(blocks), kElementwiseThreads, 0, args.stream>>>(a, b, out, n,
                                                                                   op);
      KBENCH_CUDA_CHECK_LAUNCH("VectorizedElementwiseKernel");
      break;
    }
    case ElementwiseKind::kOnePerThread: {
      const int64_t blocks = CeilDiv(n, kElementwiseThreads);
      if (blocks > kMaxGridX) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape: ", n, " elements exceed one thread per element's grid limit"));
      }
      OneElementPerThreadKernel<kInputs, T, Op>
          <<<static_cast<unsigned>(blocks), kElementwiseThreads, 0, args.stream>>>(a, b, out, n,
                                                                                   op);
      KBENCH_CUDA_CHECK_LAUNCH("OneElementPerThreadKernel");
      break;
    }
    case ElementwiseKind::kGridStride: {
      // Enough 256-thread blocks to fill every SM's 2048 thread slots once.
      const int64_t fill = int64_t{SmCount(args)} * (2048 / kElementwiseThreads);
      const int64_t blocks = std::min(fill, CeilDiv(n, kElementwiseThreads));
      GridStrideKernel<kInputs, T, Op>
          <<<static_cast<unsigned>(blocks), kElementwiseThreads, 0, args.stream>>>(a, b, out, n,
                                                                                   op);
      KBENCH_CUDA_CHECK_LAUNCH("GridStrideKernel");
      break;
    }
  }
  return absl::OkStatus();
}

// Functors (float in, float out).
struct IdentityOp {
  __device__ __forceinline__ float operator()(float x) const { return x; }
};
struct SquareOp {
  __device__ __forceinline__ float operator()(float x) const { return x * x; }
};
struct AddOp {
  __device__ __forceinline__ float operator()(float x, float y) const { return x + y; }
};
struct MulOp {
  __device__ __forceinline__ float operator()(float x, float y) const { return x * y; }
};
struct ScaleOp {
  float s;
  __device__ __forceinline__ float operator()(float x) const { return s * x; }
};
struct AddScalarOp {
  float s;
  __device__ __forceinline__ float operator()(float x) const { return x + s; }
};
struct CubeOp {
  __device__ __forceinline__ float operator()(float x) const { return x * x * x; }
};
struct TanhOp {
  __device__ __forceinline__ float operator()(float x) const { return tanhf(x); }
};
struct ErfOp {
  __device__ __forceinline__ float operator()(float x) const { return erff(x); }
};

}  // namespace kbench::kernels::cuda
