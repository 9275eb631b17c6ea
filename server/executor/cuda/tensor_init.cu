// Seeded device-side input generation and output poisoning (see tensor_init.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cuda/cuda_variants.h"
#include "kernels/random.h"
#include "server/executor/cuda/tensor_init.h"

namespace kbench::executor::cuda {
namespace {

constexpr int kThreads = 256;

// A grid that covers the SMs several times over; each thread strides through the rest.
int Blocks(int64_t elements) {
  const int64_t wanted = (elements + kThreads - 1) / kThreads;
  return static_cast<int>(wanted < 8192 ? (wanted > 0 ? wanted : 1) : 8192);
}

template <typename T>
__device__ T FromFloat(float v);
template <>
__device__ float FromFloat<float>(float v) {
  return v;
}
template <>
__device__ __half FromFloat<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

template <typename T>
__global__ void FillUniformKernel(T* data, int64_t n, uint64_t seed, uint32_t tensor, float scale) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    data[i] = FromFloat<T>(kernels::UniformAt(seed, tensor, static_cast<uint64_t>(i), scale));
  }
}

template <typename Bits>
__global__ void FillPatternKernel(Bits* data, int64_t n, Bits pattern) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    data[i] = pattern;
  }
}

template <typename T>
__device__ bool SameBits(T a, T b) {
  if constexpr (sizeof(T) == 4) {
    return __float_as_uint(a) == __float_as_uint(b);
  } else {
    unsigned short x, y;
    memcpy(&x, &a, sizeof(x));
    memcpy(&y, &b, sizeof(y));
    return x == y;
  }
}

// blockIdx.y is the buffer set.
template <typename T>
__global__ void FillUniformSetsKernel(char* first, int64_t n, int64_t stride_bytes, uint64_t seed,
                                      uint32_t tensor, float scale) {
  T* data = reinterpret_cast<T*>(first + blockIdx.y * stride_bytes);
  const uint64_t set_seed = kernels::DeriveSeed(seed, blockIdx.y);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    data[i] = FromFloat<T>(kernels::UniformAt(set_seed, tensor, static_cast<uint64_t>(i), scale));
  }
}

template <typename T>
__global__ void FillPatternSetsKernel(char* first, int64_t n, int64_t stride_bytes, uint64_t seed,
                                      uint32_t output) {
  T* data = reinterpret_cast<T*>(first + blockIdx.y * stride_bytes);
  const uint64_t set_seed = kernels::DeriveSeed(seed, blockIdx.y);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    data[i] = FromFloat<T>(kernels::OutputPatternAt(set_seed, output, static_cast<uint64_t>(i)));
  }
}

template <typename T>
__global__ void CountChangedKernel(const char* first, int64_t n, int64_t stride_bytes,
                                   uint64_t seed, uint32_t tensor, float scale,
                                   unsigned long long* changed) {
  const T* data = reinterpret_cast<const T*>(first + blockIdx.y * stride_bytes);
  const uint64_t set_seed = kernels::DeriveSeed(seed, blockIdx.y);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const T want =
        FromFloat<T>(kernels::UniformAt(set_seed, tensor, static_cast<uint64_t>(i), scale));
    mine += SameBits(data[i], want) ? 0 : 1;
  }
  if (mine != 0) atomicAdd(changed, mine);
}

template <typename T>
__global__ void GatherKernel(const T* data, const int64_t* positions, int64_t count, uint64_t seed,
                             uint32_t output, T* gathered, unsigned long long* unwritten) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int64_t p = positions[k];
  const T v = data[p];
  gathered[k] = v;
  if (unwritten != nullptr &&
      SameBits(v, FromFloat<T>(kernels::OutputPatternAt(seed, output, static_cast<uint64_t>(p))))) {
    atomicAdd(unwritten, 1ull);
  }
}

// A grid over the sets (y) whose x extent keeps the total near Blocks(elements).
dim3 SetsGrid(const TensorSets& t) {
  const int64_t x = std::max<int64_t>(1, Blocks(t.elements) / std::max<int64_t>(t.sets, 1));
  return dim3(static_cast<unsigned>(x), static_cast<unsigned>(t.sets));
}

// Calls f(T{}) with the storage type of `dtype`.
template <typename F>
void WithStorageType(kernels::DType dtype, F&& f) {
  switch (dtype) {
    case kernels::DType::kF32:
    case kernels::DType::kTF32:
      f(float{});
      break;
    case kernels::DType::kF16:
      f(__half{});
      break;
    case kernels::DType::kBF16:
      f(__nv_bfloat16{});
      break;
  }
}

// Exact binary16 -> double.
double HalfBitsToDouble(uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  double v;
  if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else if (exponent == 31) {
    v = mantissa == 0 ? HUGE_VAL : std::nan("");
  } else {
    v = std::ldexp(static_cast<double>(mantissa + 1024), exponent - 25);
  }
  return sign ? -v : v;
}

double BFloat16BitsToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

}  // namespace

absl::Status FillUniform(void* data, int64_t elements, kernels::DType dtype, uint64_t seed,
                         uint32_t tensor, float scale, cudaStream_t stream) {
  if (elements <= 0) return absl::OkStatus();
  const int blocks = Blocks(elements);
  switch (dtype) {
    case kernels::DType::kF32:
    case kernels::DType::kTF32:
      FillUniformKernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(data), elements, seed,
                                                         tensor, scale);
      break;
    case kernels::DType::kF16:
      FillUniformKernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(data), elements, seed,
                                                         tensor, scale);
      break;
    case kernels::DType::kBF16:
      FillUniformKernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data),
                                                         elements, seed, tensor, scale);
      break;
  }
  KBENCH_CUDA_CHECK_LAUNCH("FillUniformKernel");
  return absl::OkStatus();
}

absl::Status FillPoison(void* data, int64_t elements, kernels::DType dtype, cudaStream_t stream) {
  if (elements <= 0) return absl::OkStatus();
  const int blocks = Blocks(elements);
  if (kernels::StorageBytes(dtype) == 4) {
    FillPatternKernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint32_t*>(data), elements,
                                                       kPoisonF32);
  } else {
    const uint16_t pattern = dtype == kernels::DType::kF16 ? kPoisonF16 : kPoisonBF16;
    FillPatternKernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint16_t*>(data), elements,
                                                       pattern);
  }
  KBENCH_CUDA_CHECK_LAUNCH("FillPatternKernel");
  return absl::OkStatus();
}

absl::Status FillUniformSets(const TensorSets& t, uint64_t seed, uint32_t tensor, float scale,
                             cudaStream_t stream) {
  if (t.elements <= 0 || t.sets <= 0) return absl::OkStatus();
  WithStorageType(t.dtype, [&](auto type) {
    FillUniformSetsKernel<decltype(type)><<<SetsGrid(t), kThreads, 0, stream>>>(
        static_cast<char*>(t.first), t.elements, t.set_stride_bytes, seed, tensor, scale);
  });
  KBENCH_CUDA_CHECK_LAUNCH("FillUniformSetsKernel");
  return absl::OkStatus();
}

absl::Status FillPatternSets(const TensorSets& t, uint64_t pattern_seed, uint32_t output,
                             cudaStream_t stream) {
  if (t.elements <= 0 || t.sets <= 0) return absl::OkStatus();
  WithStorageType(t.dtype, [&](auto type) {
    FillPatternSetsKernel<decltype(type)><<<SetsGrid(t), kThreads, 0, stream>>>(
        static_cast<char*>(t.first), t.elements, t.set_stride_bytes, pattern_seed, output);
  });
  KBENCH_CUDA_CHECK_LAUNCH("FillPatternSetsKernel");
  return absl::OkStatus();
}

absl::Status CountChangedInputs(const TensorSets& t, uint64_t seed, uint32_t tensor, float scale,
                                unsigned long long* changed, cudaStream_t stream) {
  if (t.elements <= 0 || t.sets <= 0) return absl::OkStatus();
  WithStorageType(t.dtype, [&](auto type) {
    CountChangedKernel<decltype(type)>
        <<<SetsGrid(t), kThreads, 0, stream>>>(static_cast<const char*>(t.first), t.elements,
                                               t.set_stride_bytes, seed, tensor, scale, changed);
  });
  KBENCH_CUDA_CHECK_LAUNCH("CountChangedKernel");
  return absl::OkStatus();
}

absl::Status GatherOutputs(const void* data, kernels::DType dtype, const int64_t* positions,
                           int64_t count, uint64_t pattern_seed, uint32_t output, void* gathered,
                           unsigned long long* unwritten, cudaStream_t stream) {
  if (count <= 0) return absl::OkStatus();
  const int blocks = static_cast<int>((count + kThreads - 1) / kThreads);
  WithStorageType(dtype, [&](auto type) {
    using T = decltype(type);
    GatherKernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(data), positions, count,
                                                     pattern_seed, output,
                                                     static_cast<T*>(gathered), unwritten);
  });
  KBENCH_CUDA_CHECK_LAUNCH("GatherKernel");
  return absl::OkStatus();
}

int64_t ConvertToDouble(const void* raw, int64_t elements, kernels::DType dtype,
                        std::vector<double>* out) {
  int64_t poisoned = 0;
  out->reserve(out->size() + static_cast<size_t>(elements));
  if (kernels::StorageBytes(dtype) == 4) {
    const uint32_t* bits = static_cast<const uint32_t*>(raw);
    for (int64_t i = 0; i < elements; ++i) {
      float f;
      std::memcpy(&f, &bits[i], sizeof(f));
      poisoned += bits[i] == kPoisonF32;
      out->push_back(f);
    }
  } else if (dtype == kernels::DType::kF16) {
    const uint16_t* bits = static_cast<const uint16_t*>(raw);
    for (int64_t i = 0; i < elements; ++i) {
      poisoned += bits[i] == kPoisonF16;
      out->push_back(HalfBitsToDouble(bits[i]));
    }
  } else {
    const uint16_t* bits = static_cast<const uint16_t*>(raw);
    for (int64_t i = 0; i < elements; ++i) {
      poisoned += bits[i] == kPoisonBF16;
      out->push_back(BFloat16BitsToDouble(bits[i]));
    }
  }
  return poisoned;
}

}  // namespace kbench::executor::cuda
