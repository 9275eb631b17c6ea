// The elementwise kernels shared by copy, square, add and gelu: a 16-byte vectorized kernel
// (the fast path), a one-element-per-thread kernel and a grid-stride kernel, each applying a
// functor `op(x)` or `op(x, y)` computed in float.
#pragma once

#include <algorithm>

#include "kernels/cuda/common.cuh"

namespace kbench::kernels::cuda {

constexpr int kElementwiseThreads = 256;
// Vectors per thread in the vectorized kernel. Measured on the H100 (kernels_bench --sweep,
// 2026-11-22): one 16-byte vector per thread in many 256-thread blocks beat 2, 4 and 8 per thread
// by 1-2% at 64 MiB to 400 MB (square 100M f32: 269 us vs 275 us at 4), reaching torch eager's
// vectorized_elementwise_kernel; the block scheduler keeps enough loads in flight.
constexpr int kElementwiseUnroll = 1;
// Evict-first loads and stores (see LoadVec) stay off: measured on the H100 (2026-11-22) they
// cost 2.5% (square 100M f32: 275 us vs 269 us; add: 408 us vs 397 us).
constexpr bool kElementwiseStreaming = false;

// N elements of T loaded or stored as one aligned access (16 bytes for the widest type).
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

// Loads and stores of a vector; kStreaming marks them evict-first (ld.global.cs / st.global.cs:
// data touched once should not push other lines out of L2).
template <bool kStreaming, typename V>
__device__ __forceinline__ V LoadVec(const V* p) {
  if constexpr (kStreaming && sizeof(V) == 16) {
    const uint4 u = __ldcs(reinterpret_cast<const uint4*>(p));
    return *reinterpret_cast<const V*>(&u);
  } else if constexpr (kStreaming && sizeof(V) == 8) {
    const uint2 u = __ldcs(reinterpret_cast<const uint2*>(p));
    return *reinterpret_cast<const V*>(&u);
  } else {
    return *p;
  }
}
template <bool kStreaming, typename V>
__device__ __forceinline__ void StoreVec(V* p, const V& v) {
  if constexpr (kStreaming && sizeof(V) == 16) {
    __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));
  } else if constexpr (kStreaming && sizeof(V) == 8) {
    __stcs(reinterpret_cast<uint2*>(p), *reinterpret_cast<const uint2*>(&v));
  } else {
    *p = v;
  }
}

// Elements per vector: 16 bytes of the widest of the types involved.
template <typename... Ts>
constexpr int VecWidth() {
  size_t widest = 1;
  ((widest = sizeof(Ts) > widest ? sizeof(Ts) : widest), ...);
  return static_cast<int>(16 / widest);
}

template <int kInputs, typename TA, typename TB, typename Op>
__device__ __forceinline__ float Apply(const Op& op, const TA* a, const TB* b, int64_t i) {
  if constexpr (kInputs == 1) {
    (void)b;
    return op(ToFloat(a[i]));
  } else {
    return op(ToFloat(a[i]), ToFloat(b[i]));
  }
}

// Each thread loads kUnroll vectors of each input before computing, then stores; a block covers
// a contiguous span of kThreads * kUnroll vectors. The last block also does the n % kN tail.
// Needs pointers aligned to a vector of their type.
template <int kInputs, typename TA, typename TB, typename TO, typename Op,
          int kThreads = kElementwiseThreads, int kUnroll = kElementwiseUnroll,
          bool kStreaming = kElementwiseStreaming>
__global__ void __launch_bounds__(kThreads)
    VectorizedElementwiseKernel(const TA* __restrict__ a, const TB* __restrict__ b,
                                TO* __restrict__ out, int64_t n, Op op) {
  constexpr int kN = VecWidth<TA, TB, TO>();
  using VA = Vec<TA, kN>;
  using VB = Vec<TB, kN>;
  using VO = Vec<TO, kN>;
  const int64_t vecs = n / kN;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * kThreads * kUnroll + threadIdx.x;
  VA va[kUnroll];
  VB vb[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t idx = base + static_cast<int64_t>(u) * kThreads;
    if (idx < vecs) {
      va[u] = LoadVec<kStreaming>(reinterpret_cast<const VA*>(a) + idx);
      if constexpr (kInputs == 2) vb[u] = LoadVec<kStreaming>(reinterpret_cast<const VB*>(b) + idx);
    }
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t idx = base + static_cast<int64_t>(u) * kThreads;
    if (idx < vecs) {
      VO r;
#pragma unroll
      for (int e = 0; e < kN; ++e) {
        if constexpr (kInputs == 1) {
          r.v[e] = FromFloat<TO>(op(ToFloat(va[u].v[e])));
        } else {
          r.v[e] = FromFloat<TO>(op(ToFloat(va[u].v[e]), ToFloat(vb[u].v[e])));
        }
      }
      StoreVec<kStreaming>(reinterpret_cast<VO*>(out) + idx, r);
    }
  }
  if (blockIdx.x == gridDim.x - 1) {
    for (int64_t i = vecs * kN + threadIdx.x; i < n; i += kThreads) {
      out[i] = FromFloat<TO>(Apply<kInputs>(op, a, b, i));
    }
  }
}

// One element per thread, no loop: the first kernel everyone writes.
template <int kInputs, typename TA, typename TB, typename TO, typename Op>
__global__ void OneElementPerThreadKernel(const TA* __restrict__ a, const TB* __restrict__ b,
                                          TO* __restrict__ out, int64_t n, Op op) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FromFloat<TO>(Apply<kInputs>(op, a, b, i));
}

// A grid sized to fill the device once; each thread strides over the array.
template <int kInputs, typename TA, typename TB, typename TO, typename Op>
__global__ void GridStrideKernel(const TA* __restrict__ a, const TB* __restrict__ b,
                                 TO* __restrict__ out, int64_t n, Op op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = FromFloat<TO>(Apply<kInputs>(op, a, b, i));
  }
}

enum class ElementwiseKind { kVectorized, kOnePerThread, kGridStride };

inline bool AlignedTo(const void* p, size_t bytes) {
  return p == nullptr || (reinterpret_cast<uintptr_t>(p) % bytes) == 0;
}

// Enqueues out = op(a[, b]) over n elements. The vectorized kind falls back to the grid-stride
// kernel when a pointer is not aligned to its vector (a buffer offset by a caller), so any
// buffer works.
template <int kInputs, typename TA, typename TB, typename TO, typename Op,
          int kThreads = kElementwiseThreads, int kUnroll = kElementwiseUnroll>
absl::Status LaunchElementwise(ElementwiseKind kind, const TA* a, const TB* b, TO* out, int64_t n,
                               Op op, const LaunchArgs& args) {
  if (n <= 0) return absl::OkStatus();
  constexpr int kN = VecWidth<TA, TB, TO>();
  const bool aligned = AlignedTo(a, sizeof(TA) * kN) && AlignedTo(out, sizeof(TO) * kN) &&
                       (kInputs == 1 || AlignedTo(b, sizeof(TB) * kN));
  if (kind == ElementwiseKind::kVectorized && !aligned) kind = ElementwiseKind::kGridStride;
  switch (kind) {
    case ElementwiseKind::kVectorized: {
      const int64_t vecs = n / kN;
      const int64_t blocks = std::max<int64_t>(1, CeilDiv(vecs, int64_t{kThreads} * kUnroll));
      VectorizedElementwiseKernel<kInputs, TA, TB, TO, Op, kThreads, kUnroll>
          <<<static_cast<unsigned>(blocks), kThreads, 0, args.stream>>>(a, b, out, n, op);
      KBENCH_CUDA_CHECK_LAUNCH("VectorizedElementwiseKernel");
      break;
    }
    case ElementwiseKind::kOnePerThread: {
      const int64_t blocks = CeilDiv(n, kElementwiseThreads);
      if (blocks > kMaxGridX) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape: ", n, " elements exceed one thread per element's grid limit"));
      }
      OneElementPerThreadKernel<kInputs, TA, TB, TO, Op>
          <<<static_cast<unsigned>(blocks), kElementwiseThreads, 0, args.stream>>>(a, b, out, n,
                                                                                   op);
      KBENCH_CUDA_CHECK_LAUNCH("OneElementPerThreadKernel");
      break;
    }
    case ElementwiseKind::kGridStride: {
      // Enough 256-thread blocks to fill every SM's 2048 thread slots once.
      KBENCH_ASSIGN_OR_RETURN(const int sms, SmCount(args));
      const int64_t fill = int64_t{sms} * (2048 / kElementwiseThreads);
      const int64_t blocks = std::min(fill, CeilDiv(n, kElementwiseThreads));
      GridStrideKernel<kInputs, TA, TB, TO, Op>
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
