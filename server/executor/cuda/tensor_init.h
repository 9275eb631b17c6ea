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

// Buffer sets of a rotation (issue 23): `sets` copies of one tensor, `set_stride_bytes` apart,
// starting at `first`; set s uses the seed kernels::DeriveSeed(seed, s). Asynchronous.
struct TensorSets {
  void* first = nullptr;
  int64_t elements = 0;
  int64_t sets = 1;
  int64_t set_stride_bytes = 0;
  kernels::DType dtype = kernels::DType::kF32;
};

// FillUniform into every set, each from its derived seed.
absl::Status FillUniformSets(const TensorSets& t, uint64_t seed, uint32_t tensor, float scale,
                             cudaStream_t stream);

// Fills output `output` of every set with kernels::OutputPatternAt of its derived seed.
absl::Status FillPatternSets(const TensorSets& t, uint64_t pattern_seed, uint32_t output,
                             cudaStream_t stream);

// Adds to *changed (device memory) the elements of every set that differ, bit for bit, from
// what FillUniformSets(t, seed, tensor, scale) wrote. Asynchronous.
absl::Status CountChangedInputs(const TensorSets& t, uint64_t seed, uint32_t tensor, float scale,
                                unsigned long long* changed, cudaStream_t stream);

// Copies data[positions[k]] (raw, in the dtype) to gathered[k] for k < count, and adds to
// *unwritten (device memory; may be null) those still holding
// OutputPatternAt(pattern_seed, output, .).
// `positions` and `gathered` are device memory. Asynchronous.
absl::Status GatherOutputs(const void* data, kernels::DType dtype, const int64_t* positions,
                           int64_t count, uint64_t pattern_seed, uint32_t output, void* gathered,
                           unsigned long long* unwritten, cudaStream_t stream);

// Converts `elements` raw values of `dtype` (as read back from the device) to float64, exactly,
// appending them to `out`; returns how many still hold the poison pattern.
int64_t ConvertToDouble(const void* raw, int64_t elements, kernels::DType dtype,
                        std::vector<double>* out);

// The poison bit patterns, by storage size.
inline constexpr uint32_t kPoisonF32 = 0x7FC0DEADu;
inline constexpr uint16_t kPoisonF16 = 0x7E5Du;   // exponent 11111, payload 0x25D
inline constexpr uint16_t kPoisonBF16 = 0x7FDEu;  // exponent 0xFF, payload 0x5E

}  // namespace kbench::executor::cuda
