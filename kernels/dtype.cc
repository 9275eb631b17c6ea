// Names and sizes of the catalogue's element types.
#include "kernels/dtype.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace kbench::kernels {

std::string DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kTF32:
      return "tf32";
  }
  return "unknown";
}

absl::StatusOr<DType> ParseDType(const std::string& name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "f32" || lower == "float32" || lower == "float") return DType::kF32;
  if (lower == "f16" || lower == "float16" || lower == "half") return DType::kF16;
  if (lower == "bf16" || lower == "bfloat16") return DType::kBF16;
  if (lower == "tf32") return DType::kTF32;
  return absl::InvalidArgumentError(
      absl::StrCat("dtype: unknown element type '", name, "' (expected f32, f16, bf16 or tf32)"));
}

size_t StorageBytes(DType dtype) {
  switch (dtype) {
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kF32:
    case DType::kTF32:
      return 4;
  }
  return 4;
}

}  // namespace kbench::kernels
