// Seeded device-side input generation and output poisoning (see tensor_init.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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
