// Device-side helpers shared by the CUDA variants: dtype dispatch and conversion, 16-byte packs,
// block and warp reductions, launch-size helpers. Included only by kernels/cuda/*.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/dtype.h"
#include "kernels/operation.h"

namespace kbench::kernels::cuda {

// ---- dtypes --------------------------------------------------------------------------------

__host__ __device__ __forceinline__ float ToFloat(float x) { return x; }
__host__ __device__ __forceinline__ float ToFloat(__half x) { return __half2float(x); }
__host__ __device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__host__ __device__ __forceinline__ T FromFloat(float x);
template <>
__host__ __device__ __forceinline__ float FromFloat<float>(float x) {
  return x;
}
template <>
__host__ __device__ __forceinline__ __half FromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__host__ __device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// Calls fn(T{}) with T the storage type of an f32/f16/bf16 problem; tf32 is f32 storage.
template <typename Fn>
absl::Status DispatchFloat(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kF32:
    case DType::kTF32:
      return fn(float{});
    case DType::kF16:
      return fn(__half{});
    case DType::kBF16:
      return fn(__nv_bfloat16{});
  }
  return absl::InvalidArgumentError(absl::StrCat("dtype: unsupported ", DTypeName(dtype)));
}

// ---- alignment ---------------------------------------------------------------------------

inline bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

// ---- row chunks ----------------------------------------------------------------------------

// A slice of a row that one thread loads at once: a 16-byte pack when the rows are 16-byte
// aligned (kVec), otherwise one element.
template <typename T, bool kVec>
struct RowChunk {
  static constexpr int kE = kVec ? 16 / static_cast<int>(sizeof(T)) : 1;
  using Raw = std::conditional_t<kVec, uint4, T>;
  Raw raw;
  __device__ __forceinline__ static RowChunk Load(const T* __restrict__ row, int64_t i) {
    RowChunk c;
    c.raw = reinterpret_cast<const Raw*>(row)[i];
    return c;
  }
  __device__ __forceinline__ void Store(T* __restrict__ row, int64_t i) const {
    reinterpret_cast<Raw*>(row)[i] = raw;
  }
  __device__ __forceinline__ float get(int e) const {
    return ToFloat(reinterpret_cast<const T*>(&raw)[e]);
  }
  __device__ __forceinline__ void set(int e, float v) {
    reinterpret_cast<T*>(&raw)[e] = FromFloat<T>(v);
  }
};

// ---- reductions ----------------------------------------------------------------------------

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
  static constexpr float kIdentity = -INFINITY;
};
struct SumOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
  static constexpr float kIdentity = 0.0f;
};

template <typename Op>
__device__ __forceinline__ float WarpReduce(float v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Reduces over the block; every thread gets the result. `scratch` holds 32 floats. Ends with a
// barrier so that scratch may be reused right after.
template <typename Op>
__device__ __forceinline__ float BlockReduce(float v, Op op, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = WarpReduce(v, op);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = lane < warps ? scratch[lane] : Op::kIdentity;
  r = WarpReduce(r, op);
  __syncthreads();
  return r;
}

// ---- launch helpers ------------------------------------------------------------------------

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// SM count of the device the args run on (from args.prop when given, else asked of the current
// device: a failure is the launch's error, not a guessed count).
inline absl::StatusOr<int> SmCount(const LaunchArgs& args) {
  if (args.prop != nullptr) return args.prop->multiProcessorCount;
  int device = 0, sms = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Product of the problem's dims: the element count of an elementwise problem.
inline int64_t Elements(const Problem& p) {
  int64_t n = 1;
  for (int64_t d : p.shape) n *= d;
  return n;
}

// OK when args carry the `need` bytes of workspace that the operation's workspace function
// (kernels/ops/workspace.h, the one the catalogue's Layout calls) asks for this problem.
inline absl::Status CheckWorkspace(int64_t need, const Problem& problem, const LaunchArgs& args) {
  if (need == 0) return absl::OkStatus();
  if (args.workspace == nullptr || args.workspace_bytes < static_cast<size_t>(need)) {
    return absl::InvalidArgumentError(absl::StrCat("workspace: ", problem.op, "/", problem.variant,
                                                   " needs ", need, " bytes, got ",
                                                   args.workspace_bytes));
  }
  return absl::OkStatus();
}

// The largest grid.x a launch may use.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridY = 65535;

}  // namespace kbench::kernels::cuda
