// The odd shapes every CUDA variant is checked on (non-multiples of the block size, one row, one
// column, primes): the GPU test's cases, and a CPU test that every operation with CUDA variants
// has some. CUDA-free, so that the coverage check runs without a device or a CUDA build.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kbench::kernels {

// A shape and its integer params (mlp's layers and steps).
using ShapeAndParams = std::pair<std::vector<int64_t>, std::map<std::string, int64_t>>;

// Odd shapes for (op, variant); empty for an operation not listed, which the coverage test
// (OddShapes.CoverEveryOperationWithCudaVariants) turns into a failure.
std::vector<ShapeAndParams> OddShapes(const std::string& op, const std::string& variant);

}  // namespace kbench::kernels
