// The result key's parts as the result index stores them (text a person can read in the
// database) and back: shape "4096x4096", dtype "f32", mode "cold", params "a=1,b=2".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/map.h"
#include "google/protobuf/repeated_field.h"
#include "kbench/v1/types.pb.h"

namespace kbench::result_key {

std::string ShapeText(const google::protobuf::RepeatedField<int64_t>& shape);
// INVALID_ARGUMENT naming the text unless it is positive integers joined by 'x'.
absl::StatusOr<std::vector<int64_t>> ParseShapeText(const std::string& text);

std::string DTypeText(v1::DType dtype);            // "f32"; "" for unspecified
v1::DType DTypeFromText(const std::string& text);  // DTYPE_UNSPECIFIED when unknown

std::string ModeText(v1::MeasureMode mode);  // "cold"; "" for unspecified
v1::MeasureMode ModeFromText(const std::string& text);

// Sorted by name, so that equal maps give equal text.
std::string ParamsText(const google::protobuf::Map<std::string, int64_t>& params);
// Pairs that do not parse are skipped (the index only holds text ParamsText wrote).
void ParseParamsText(const std::string& text, google::protobuf::Map<std::string, int64_t>* out);

}  // namespace kbench::result_key
