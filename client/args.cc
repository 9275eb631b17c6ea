// Argument value parsers for kbctl: shapes, enum names, devices, parameters, numbers, durations.
#include "client/args.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "client/errors.h"
#include "common/enum_words.h"
#include "common/status_macros.h"
#include "google/protobuf/descriptor.h"

namespace kbench::client {
namespace {

// Shapes beyond this many dimensions are certainly a typo; no operation has more than 3.
constexpr int kMaxDims = 8;

std::string Quoted(const std::string& text) { return absl::StrCat("\"", text, "\""); }

// The accepted spellings of an enum: its words (common/enum_words.h), skipping the
// *_UNSPECIFIED zero value.
std::vector<std::string> EnumChoices(const google::protobuf::EnumDescriptor* d,
                                     const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 0; i < d->value_count(); ++i) {
    if (d->value(i)->number() == 0) continue;
    out.push_back(EnumWord(d, prefix, d->value(i)->number()));
  }
  return out;
}

absl::StatusOr<int> ParseEnum(const google::protobuf::EnumDescriptor* d, const std::string& prefix,
                              const std::string& flag, const std::string& text) {
  std::string upper = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  if (!absl::StartsWith(upper, prefix)) upper = prefix + upper;
  const google::protobuf::EnumValueDescriptor* v = d->FindValueByName(upper);
  if (v == nullptr || v->number() == 0) {
    return UsageError(absl::StrCat(flag, ": unknown value ", Quoted(text), "; expected one of ",
                                   absl::StrJoin(EnumChoices(d, prefix), ", ")));
  }
  return v->number();
}

// The enum's word (common/enum_words.h), "-" for the unspecified value in tables.
std::string EnumShortName(const google::protobuf::EnumDescriptor* d, const std::string& prefix,
                          int value) {
  const std::string word = EnumWord(d, prefix, value);
  return word.empty() ? "-" : word;
}

bool AllDigits(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseShape(const std::string& flag, const std::string& text) {
  const std::string trimmed(absl::StripAsciiWhitespace(text));
  if (trimmed.empty()) {
    return UsageError(absl::StrCat(flag, ": empty; expected dimensions like 4096x4096"));
  }
  std::vector<std::string> parts = absl::StrSplit(trimmed, absl::ByAnyChar("xX,"));
  if (parts.size() > kMaxDims) {
    return UsageError(absl::StrCat(flag, " ", Quoted(text), ": ", parts.size(),
                                   " dimensions; at most ", kMaxDims));
  }
  std::vector<int64_t> shape;
  int64_t elements = 1;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string where = absl::StrCat(flag, " ", Quoted(text), ": dimension ", i + 1);
    const std::string part(absl::StripAsciiWhitespace(parts[i]));
    if (part.empty()) return UsageError(absl::StrCat(where, " is empty"));
    if (part[0] == '-') {
      return UsageError(absl::StrCat(where, " (", part, ") is negative; dimensions are positive"));
    }
    if (!AllDigits(part)) {
      return UsageError(absl::StrCat(where, " (", Quoted(part), ") is not a whole number"));
    }
    int64_t dim = 0;
    if (!absl::SimpleAtoi(part, &dim)) {
      return UsageError(absl::StrCat(where, " (", part, ") does not fit in 64 bits"));
    }
    if (dim == 0) return UsageError(absl::StrCat(where, " is 0; dimensions are positive"));
    if (elements > std::numeric_limits<int64_t>::max() / dim) {
      return UsageError(absl::StrCat(flag, " ", Quoted(text),
                                     ": the number of elements does not fit in 64 bits"));
    }
    elements *= dim;
    shape.push_back(dim);
  }
  return shape;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return shape.empty() ? "-" : absl::StrJoin(shape, "x");
}

absl::StatusOr<v1::DType> ParseDType(const std::string& flag, const std::string& text) {
  KBENCH_ASSIGN_OR_RETURN(int v, ParseEnum(v1::DType_descriptor(), "DTYPE_", flag, text));
  return static_cast<v1::DType>(v);
}

absl::StatusOr<v1::MeasureMode> ParseMode(const std::string& flag, const std::string& text) {
  KBENCH_ASSIGN_OR_RETURN(int v,
                          ParseEnum(v1::MeasureMode_descriptor(), "MEASURE_MODE_", flag, text));
  return static_cast<v1::MeasureMode>(v);
}

absl::StatusOr<v1::JobState> ParseJobState(const std::string& flag, const std::string& text) {
  KBENCH_ASSIGN_OR_RETURN(int v, ParseEnum(v1::JobState_descriptor(), "JOB_STATE_", flag, text));
  return static_cast<v1::JobState>(v);
}

namespace {

constexpr char kDeviceForms[] =
    "expected cpu, cuda:N or cuda:any, and in a fleet NODE/DEVICE or KIND:any (cpu:any, h100:any)";

// One host's device: "cpu", "cuda:N", "cuda:any" ("cuda" alone is any), lower case.
std::optional<std::string> HostDevice(absl::string_view text) {
  const std::string d = absl::AsciiStrToLower(text);
  if (d == "cpu" || d == "cuda:any") return d;
  if (d == "cuda") return std::string("cuda:any");
  absl::string_view index = d;
  int n = 0;
  if (absl::ConsumePrefix(&index, "cuda:") && AllDigits(index) && index.size() <= 4 &&
      absl::SimpleAtoi(index, &n)) {
    return absl::StrCat("cuda:", n);
  }
  return std::nullopt;
}

// A fleet's "KIND:any": any device of a kind or of a GPU model's word (h100, a100, l4).
std::optional<std::string> AnyOfKind(absl::string_view text) {
  std::string d = absl::AsciiStrToLower(text);
  absl::string_view kind = d;
  if (!absl::ConsumeSuffix(&kind, ":any") || kind.empty() || kind.size() > 32) return std::nullopt;
  for (char c : kind) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return std::nullopt;
  }
  return d;
}

}  // namespace

absl::StatusOr<std::string> ParseDevice(const std::string& flag, const std::string& text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  const size_t slash = trimmed.find('/');
  std::optional<std::string> device;
  if (slash == absl::string_view::npos) {
    device = HostDevice(trimmed);
    if (!device) device = AnyOfKind(trimmed);
  } else if (const absl::string_view node = trimmed.substr(0, slash);
             !node.empty() && node.size() <= 63) {
    // A node's name keeps its case, as the node was started with it (--node).
    if (std::optional<std::string> local = HostDevice(trimmed.substr(slash + 1))) {
      device = absl::StrCat(node, "/", *local);
    }
  }
  if (device) return *device;
  return UsageError(absl::StrCat(flag, ": unknown device ", Quoted(text), "; ", kDeviceForms));
}

std::string DTypeName(v1::DType dtype) {
  return EnumShortName(v1::DType_descriptor(), "DTYPE_", dtype);
}
std::string ModeName(v1::MeasureMode mode) {
  return EnumShortName(v1::MeasureMode_descriptor(), "MEASURE_MODE_", mode);
}
std::string StateName(v1::JobState state) {
  return EnumShortName(v1::JobState_descriptor(), "JOB_STATE_", state);
}
std::string KindName(v1::JobKind kind) {
  return EnumShortName(v1::JobKind_descriptor(), "JOB_KIND_", kind);
}
std::string DeviceKindName(v1::DeviceKind kind) {
  return EnumShortName(v1::DeviceKind_descriptor(), "DEVICE_KIND_", kind);
}
std::string DeviceStateName(v1::DeviceState state) {
  return EnumShortName(v1::DeviceState_descriptor(), "DEVICE_STATE_", state);
}

absl::StatusOr<std::map<std::string, int64_t>> ParseParams(const std::string& flag,
                                                           const std::vector<std::string>& items) {
  std::map<std::string, int64_t> params;
  for (const std::string& item : items) {
    for (absl::string_view piece : absl::StrSplit(item, ',', absl::SkipWhitespace())) {
      const std::string pair(absl::StripAsciiWhitespace(piece));
      const size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0) {
        return UsageError(absl::StrCat(flag, " ", Quoted(pair), ": expected name=value"));
      }
      const std::string name(absl::StripAsciiWhitespace(pair.substr(0, eq)));
      const std::string text(absl::StripAsciiWhitespace(pair.substr(eq + 1)));
      int64_t value = 0;
      if (!absl::SimpleAtoi(text, &value)) {
        return UsageError(absl::StrCat(flag, " ", Quoted(pair), ": value ", Quoted(text),
                                       " is not a 64-bit integer"));
      }
      if (!params.emplace(name, value).second) {
        return UsageError(absl::StrCat(flag, ": parameter ", Quoted(name), " given twice"));
      }
    }
  }
  return params;
}

absl::StatusOr<std::vector<std::string>> ParseNameList(const std::string& flag,
                                                       const std::vector<std::string>& items) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const std::string& item : items) {
    for (absl::string_view piece : absl::StrSplit(item, ',')) {
      const std::string name(absl::StripAsciiWhitespace(piece));
      if (name.empty()) {
        return UsageError(absl::StrCat(flag, " ", Quoted(item), ": empty name in the list"));
      }
      if (!seen.insert(name).second) {
        return UsageError(absl::StrCat(flag, ": ", Quoted(name), " listed twice"));
      }
      names.push_back(name);
    }
  }
  return names;
}

absl::StatusOr<int64_t> ParseInt(const std::string& flag, const std::string& text, int64_t min,
                                 int64_t max) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value)) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text), " is not an integer"));
  }
  if (value < min || value > max) {
    return UsageError(absl::StrCat(flag, ": ", value, " is out of range [", min, ", ", max, "]"));
  }
  return value;
}

absl::StatusOr<uint64_t> ParseUint64(const std::string& flag, const std::string& text) {
  uint64_t value = 0;
  const std::string t(absl::StripAsciiWhitespace(text));
  if (t.empty() || t[0] == '-' || !absl::SimpleAtoi(t, &value)) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text), " is not an unsigned 64-bit integer"));
  }
  return value;
}

absl::StatusOr<absl::Duration> ParseDuration(const std::string& flag, const std::string& text) {
  const std::string t(absl::StripAsciiWhitespace(text));
  double seconds = 0;
  absl::Duration d;
  if (absl::SimpleAtod(t, &seconds)) {
    if (!std::isfinite(seconds)) {
      return UsageError(absl::StrCat(flag, ": ", Quoted(text), " is not a finite duration"));
    }
    d = absl::Seconds(seconds);
  } else if (!absl::ParseDuration(t, &d) || d == absl::InfiniteDuration()) {
    return UsageError(
        absl::StrCat(flag, ": ", Quoted(text), " is not a duration (e.g. 30, 1.5s, 500ms, 2m)"));
  }
  if (d < absl::ZeroDuration()) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text), " is negative"));
  }
  return d;
}

absl::StatusOr<double> ParseSeconds(const std::string& flag, const std::string& text,
                                    bool allow_zero) {
  KBENCH_ASSIGN_OR_RETURN(absl::Duration d, ParseDuration(flag, text));
  if (!allow_zero && d == absl::ZeroDuration()) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text), " must be greater than zero"));
  }
  return absl::ToDoubleSeconds(d);
}

absl::StatusOr<double> ParseFraction(const std::string& flag, const std::string& text) {
  std::string t(absl::StripAsciiWhitespace(text));
  double scale = 1;
  if (absl::EndsWith(t, "%")) {
    t.pop_back();
    scale = 0.01;
  }
  double value = 0;
  if (!absl::SimpleAtod(t, &value) || !std::isfinite(value)) {
    return UsageError(
        absl::StrCat(flag, ": ", Quoted(text), " is not a number (e.g. 0.005 or 0.5%)"));
  }
  value *= scale;
  if (!(value > 0 && value < 1)) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text),
                                   " is outside (0, 1); give a fraction like 0.005 or 0.5%"));
  }
  return value;
}

absl::StatusOr<double> ParsePercent(const std::string& flag, const std::string& text) {
  double percent = 0;
  if (!absl::SimpleAtod(absl::StripSuffix(absl::StripAsciiWhitespace(text), "%"), &percent) ||
      !(percent > 0 && percent <= 100)) {
    return UsageError(absl::StrCat(flag, ": ", Quoted(text),
                                   " is not a percentage above 0 and at most 100 (e.g. 3 or 3%)"));
  }
  return percent;
}

}  // namespace kbench::client
