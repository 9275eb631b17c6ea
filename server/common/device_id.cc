// Parsing and printing device ids.
#include "server/common/device_id.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace kbench {
namespace {

// A bad value is quoted, but never whole: a 1 MiB name must not become a 1 MiB error.
constexpr size_t kQuotedPrefix = 40;

absl::Status Invalid(absl::string_view text) {
  const bool cut = text.size() > kQuotedPrefix;
  return absl::InvalidArgumentError(absl::StrCat("unknown device '", text.substr(0, kQuotedPrefix),
                                                 cut ? "...'" : "'",
                                                 "; expected cpu, cuda:N or cuda:any"));
}

}  // namespace

std::string DeviceId::ToString() const {
  switch (kind) {
    case Kind::kCpu:
      return "cpu";
    case Kind::kAnyCuda:
      return "cuda:any";
    case Kind::kCuda:
      return absl::StrCat("cuda:", ordinal);
  }
  return "cpu";
}

absl::StatusOr<DeviceId> ParseDeviceId(absl::string_view text) {
  if (text == "cpu") return DeviceId::Cpu();
  if (text == "cuda:any") return DeviceId::AnyCuda();
  absl::string_view digits = text;
  if (!absl::ConsumePrefix(&digits, "cuda:") || digits.empty() || digits.size() > 4) {
    return Invalid(text);
  }
  // SimpleAtoi accepts a sign and surrounding spaces; an id is digits only, without leading 0s.
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return Invalid(text);
  }
  if (digits.size() > 1 && digits.front() == '0') return Invalid(text);
  int ordinal = 0;
  if (!absl::SimpleAtoi(digits, &ordinal) || ordinal > kMaxCudaOrdinal) return Invalid(text);
  return DeviceId::Cuda(ordinal);
}

}  // namespace kbench
