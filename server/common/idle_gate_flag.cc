// Parsing of --idle-gate values.
#include "server/common/idle_gate_flag.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace kbench {
namespace {

// A bound on the wait: a gate is for settling, not for queueing behind another user's job.
constexpr double kMaxGateSeconds = 600;

absl::Status Invalid(const std::string& text, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("--idle-gate '", text, "': ", why,
                                                 " (expected DEVICE=TIMEOUT_S[,MAX_TEMP_C], e.g. ",
                                                 "cuda:0=30,70 or cuda:*=60)"));
}

}  // namespace

absl::StatusOr<IdleGateSpec> ParseIdleGateSpec(const std::string& text) {
  const std::pair<std::string, std::string> parts = absl::StrSplit(text, absl::MaxSplits('=', 1));
  IdleGateSpec spec;
  spec.device = parts.first;
  if (!absl::StartsWith(spec.device, "cuda:") || spec.device.size() == 5) {
    return Invalid(text, "the device must be cuda:N or cuda:*");
  }
  const std::vector<std::string> values = absl::StrSplit(parts.second, ',');
  if (values.empty() || values.size() > 2) return Invalid(text, "one or two values after '='");
  if (!absl::SimpleAtod(values[0], &spec.timeout_seconds) || !(spec.timeout_seconds > 0) ||
      spec.timeout_seconds > kMaxGateSeconds) {
    return Invalid(text, absl::StrCat("the timeout must be seconds in (0, ", kMaxGateSeconds, "]"));
  }
  if (values.size() == 2 && (!absl::SimpleAtoi(values[1], &spec.max_temperature_c) ||
                             spec.max_temperature_c < 1 || spec.max_temperature_c > 120)) {
    return Invalid(text, "the temperature must be degrees C from 1 to 120");
  }
  return spec;
}

std::optional<IdleGateSpec> IdleGateFor(const std::string& device,
                                        const std::vector<std::string>& specs) {
  std::optional<IdleGateSpec> any_cuda;
  for (const std::string& text : specs) {
    absl::StatusOr<IdleGateSpec> spec = ParseIdleGateSpec(text);
    if (!spec.ok()) continue;
    if (spec->device == device) return *spec;
    if (spec->device == "cuda:*" && absl::StartsWith(device, "cuda:")) any_cuda = *spec;
  }
  return any_cuda;
}

}  // namespace kbench
