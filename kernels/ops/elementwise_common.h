// Shared pieces of the elementwise operations (copy, square, add, gelu): any-rank shapes whose
// element count is what matters, and the one-pass byte model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/operation.h"

namespace kbench::kernels {

// Product of the shape's dims (validation guarantees it does not overflow).
int64_t ElementCount(const Problem& problem);

// `inputs` input tensors and one output, all of ElementCount elements.
Layout ElementwiseLayout(const Problem& problem, const std::vector<std::string>& input_names);

// Each input read once and the output written once: (inputs + 1) * n * sizeof(dtype).
int64_t ElementwiseBytes(const Problem& problem, int inputs);

// The dtypes an elementwise CUDA variant accepts.
std::vector<DType> FloatDTypes();

}  // namespace kbench::kernels
