// The short words of the API's enums that people read and type: "cold" for MEASURE_MODE_COLD,
// "f32" for DTYPE_F32, "" for the unspecified value. kbctl, the reports and the result keys of
// the history all spell a mode or a dtype with these, so it is spelled one way everywhere.
// Header-only; its users link kbench_proto.
#pragma once

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/protobuf/descriptor.h"
#include "kbench/v1/types.pb.h"

namespace kbench {

// The value's name without `prefix`, in lower case; "" for 0 (every enum's UNSPECIFIED) and
// "unknown(N)" for a number the enum does not have (a newer peer's value).
inline std::string EnumWord(const google::protobuf::EnumDescriptor* descriptor,
                            absl::string_view prefix, int value) {
  if (value == 0) return "";
  const google::protobuf::EnumValueDescriptor* v = descriptor->FindValueByNumber(value);
  if (v == nullptr) return absl::StrCat("unknown(", value, ")");
  return absl::AsciiStrToLower(absl::StripPrefix(v->name(), prefix));
}

inline std::string MeasureModeWord(v1::MeasureMode mode) {
  return EnumWord(v1::MeasureMode_descriptor(), "MEASURE_MODE_", mode);
}

inline std::string DTypeWord(v1::DType dtype) {
  return EnumWord(v1::DType_descriptor(), "DTYPE_", dtype);
}

}  // namespace kbench
