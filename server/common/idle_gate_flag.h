// kbenchd's --idle-gate flag (issue 13, item 7): per device, how long to wait before sampling
// for the GPU to be idle, cool and at its default SM clock. kbenchd checks each value and hands
// them all to every executor, which takes the one for its device.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench {

struct IdleGateSpec {
  // "cuda:0", or "cuda:*" for every CUDA device without its own.
  std::string device;
  double timeout_seconds = 0;
  // 0: no temperature condition.
  int max_temperature_c = 0;
};

// "DEVICE=TIMEOUT_S[,MAX_TEMP_C]", e.g. "cuda:0=30,70" or "cuda:*=60". INVALID_ARGUMENT
// naming the text otherwise.
absl::StatusOr<IdleGateSpec> ParseIdleGateSpec(const std::string& text);

// The spec for `device` among `specs`: its own, else "cuda:*" for a CUDA device; nullopt when
// none applies. Specs that do not parse are skipped (kbenchd checked them).
std::optional<IdleGateSpec> IdleGateFor(const std::string& device,
                                        const std::vector<std::string>& specs);

}  // namespace kbench
