// Device tensors' contents: inputs generated on the device from the seed (the same values the
// host's kernels::UniformAt gives, rounded to the dtype), the poison pattern written into
// outputs before a checked run, and the host-side conversion of read-back bytes to float64.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "kernels/dtype.h"

namespace kbench::executor::cuda {

// Fills data[0, elements) with UniformAt(seed, tensor, i, scale) computed in float32 and rounded
// to nearest into `dtype` (f16, bf16; f32 and tf32 keep the float32 value). Asynchronous.
absl::Status FillUniform(void* data, int64_t elements, kernels::DType dtype, uint64_t seed,
                         uint32_t tensor, float scale, cudaStream_t stream);

// Writes the dtype's poison pattern (a quiet NaN with a recognisable payload) into every
// element. Asynchronous.
absl::Status FillPoison(void* data, int64_t elements, kernels::DType dtype, cudaStream_t stream);

// Converts `elements` raw values of `dtype` (as read back from the device) to float64, exactly,
// appending them to `out`; returns how many still hold the poison pattern.
int64_t ConvertToDouble(const void* raw, int64_t elements, kernels::DType dtype,
                        std::vector<double>* out);

// The poison bit patterns, by storage size.
inline constexpr uint32_t kPoisonF32 = 0x7FC0DEADu;
inline constexpr uint16_t kPoisonF16 = 0x7E5Du;   // exponent 11111, payload 0x25D
inline constexpr uint16_t kPoisonBF16 = 0x7FDEu;  // exponent 0xFF, payload 0x5E

}  // namespace kbench::executor::cuda
