// Counter-based random numbers shared by host and device, so that a seed fully determines
// every input tensor wherever it is generated. splitmix64 of (seed, tensor, index).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define KBENCH_HOST_DEVICE __host__ __device__
#else
#define KBENCH_HOST_DEVICE
#endif

namespace kbench::kernels {

KBENCH_HOST_DEVICE inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [-scale, scale), never exactly zero-filled: 24 random mantissa bits.
KBENCH_HOST_DEVICE inline float UniformAt(uint64_t seed, uint32_t tensor, uint64_t index,
                                          float scale) {
  const uint64_t bits =
      SplitMix64(seed ^ SplitMix64((static_cast<uint64_t>(tensor) << 48) ^ index));
  const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1)
  return (2.0f * unit - 1.0f) * scale;
}

// A seed derived from `seed` for sub-stream `k` (buffer set k of a rotation); k = 0 gives
// `seed` itself. Never 0 otherwise.
KBENCH_HOST_DEVICE inline uint64_t DeriveSeed(uint64_t seed, uint64_t k) {
  return k == 0 ? seed : (SplitMix64(seed ^ SplitMix64(k * 0x9E3779B97F4A7C15ull)) | 1);
}

// The pattern a sealed timed sample's output `output` holds before the launch (issue 23): values
// in [-1, 1) from its own tensor numbers, so no kernel can tell it from a plausible answer.
KBENCH_HOST_DEVICE inline float OutputPatternAt(uint64_t seed, uint32_t output, uint64_t index) {
  return UniformAt(seed, 0x4000u + output, index, 1.0f);
}

}  // namespace kbench::kernels
