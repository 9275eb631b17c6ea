// The energy phase: one batch per variant between two readings of the energy counter.
#include "server/executor/energy_phase.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"

namespace kbench::executor {

absl::StatusOr<v1::Energy> MeasureVariantEnergy(DeviceRunner& runner, PreparedVariant& variant,
                                                double per_launch_seconds,
                                                const kernels::Cost& cost, double budget_seconds) {
  EnergyCounter* counter = runner.energy_counter();
  if (counter == nullptr)
    return EnergyUnsupported(absl::StrCat("unsupported on ", runner.info().id()));
  EnergyPlanOptions options;
  options.max_seconds =
      std::max(options.min_seconds, std::min(options.max_seconds, budget_seconds));
  const auto now = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  return MeasureEnergy(
      *counter, [&](int64_t launches) { return variant.LaunchBatch(launches); }, per_launch_seconds,
      {.flops = cost.flops, .bytes = cost.bytes}, options, now);
}

}  // namespace kbench::executor
