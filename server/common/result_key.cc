// Text forms of the result key's parts.
#include "server/common/result_key.h"

#include <cctype>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/enum_words.h"

namespace kbench::result_key {

std::string ShapeText(const google::protobuf::RepeatedField<int64_t>& shape) {
  return absl::StrJoin(shape, "x");
}

absl::StatusOr<std::vector<int64_t>> ParseShapeText(const std::string& text) {
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    int64_t dim = 0;
    if (!absl::SimpleAtoi(part, &dim) || dim < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape '", text, "' is not positive integers joined by 'x'"));
    }
    dims.push_back(dim);
  }
  return dims;
}

std::string DTypeText(v1::DType dtype) { return DTypeWord(dtype); }

v1::DType DTypeFromText(const std::string& text) {
  v1::DType dtype = v1::DTYPE_UNSPECIFIED;
  if (!v1::DType_Parse(absl::StrCat("DTYPE_", absl::AsciiStrToUpper(text)), &dtype)) {
    return v1::DTYPE_UNSPECIFIED;
  }
  return dtype;
}

std::string ModeText(v1::MeasureMode mode) { return MeasureModeWord(mode); }

v1::MeasureMode ModeFromText(const std::string& text) {
  v1::MeasureMode mode = v1::MEASURE_MODE_UNSPECIFIED;
  if (!v1::MeasureMode_Parse(absl::StrCat("MEASURE_MODE_", absl::AsciiStrToUpper(text)), &mode)) {
    return v1::MEASURE_MODE_UNSPECIFIED;
  }
  return mode;
}

std::string ParamsText(const google::protobuf::Map<std::string, int64_t>& params) {
  const std::map<std::string, int64_t> sorted(params.begin(), params.end());
  return absl::StrJoin(sorted, ",", absl::PairFormatter("="));
}

void ParseParamsText(const std::string& text, google::protobuf::Map<std::string, int64_t>* out) {
  for (absl::string_view pair : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
    int64_t value = 0;
    if (absl::SimpleAtoi(kv.second, &value)) (*out)[kv.first] = value;
  }
}

}  // namespace kbench::result_key
