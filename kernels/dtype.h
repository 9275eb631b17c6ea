// Element types the catalogue knows, their names and storage sizes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kbench::kernels {

// kTF32 is f32 storage computed with TF32 tensor-core math (matmul only).
enum class DType { kF32, kF16, kBF16, kTF32 };

std::string DTypeName(DType dtype);
absl::StatusOr<DType> ParseDType(const std::string& name);
// Bytes one element occupies in device or host memory.
size_t StorageBytes(DType dtype);

}  // namespace kbench::kernels
