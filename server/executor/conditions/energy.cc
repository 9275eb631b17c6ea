// Energy per launch: batch planning and the arithmetic over NVML's energy counter.
#include "server/executor/conditions/energy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench::executor {

int64_t PlanEnergyLaunches(double per_launch_seconds, const EnergyPlanOptions& options) {
  if (!(per_launch_seconds > 0)) return 0;
  const double span = std::min(
      options.max_seconds,
      std::max(options.min_seconds, options.min_counter_updates * options.counter_period_seconds));
  const double launches = std::ceil(span / per_launch_seconds);
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(launches, 9.0e18)), 1,
                             options.max_launches);
}

v1::Energy EnergyFromCounter(uint64_t millijoules_before, uint64_t millijoules_after,
                             int64_t launches, double seconds, const LaunchWork& work) {
  if (launches <= 0 || !(seconds > 0)) {
    return EnergyUnsupported("no launches were timed in the energy phase");
  }
  if (millijoules_after <= millijoules_before) {
    return EnergyUnsupported(
        absl::StrCat("the energy counter did not advance over ", launches, " launches in ", seconds,
                     " s (the batch was shorter than one counter update, or the driver reset it)"));
  }
  v1::Energy e;
  const double joules = static_cast<double>(millijoules_after - millijoules_before) / 1000.0;
  e.set_measured(true);
  e.set_launches(launches);
  e.set_seconds(seconds);
  e.set_joules(joules);
  e.set_joules_per_launch(joules / static_cast<double>(launches));
  e.set_average_watts(joules / seconds);
  e.set_flops_per_joule(static_cast<double>(work.flops) / e.joules_per_launch());
  e.set_bytes_per_joule(static_cast<double>(work.bytes) / e.joules_per_launch());
  return e;
}

absl::StatusOr<v1::Energy> MeasureEnergy(
    EnergyCounter& counter, const std::function<absl::Status(int64_t launches)>& launch_batch,
    double per_launch_seconds, const LaunchWork& work, const EnergyPlanOptions& options,
    const std::function<double()>& now_seconds) {
  const int64_t launches = PlanEnergyLaunches(per_launch_seconds, options);
  if (launches == 0) return EnergyUnsupported("no per-launch time to plan the energy phase with");
  const std::optional<uint64_t> before = counter.TotalMillijoules();
  if (!before) {
    return EnergyUnsupported(
        "unsupported by this device's driver (nvmlDeviceGetTotalEnergyConsumption)");
  }
  const double start = now_seconds();
  KBENCH_RETURN_IF_ERROR(launch_batch(launches));
  const double seconds = now_seconds() - start;
  const std::optional<uint64_t> after = counter.TotalMillijoules();
  if (!after) return EnergyUnsupported("the energy counter could not be read after the batch");
  return EnergyFromCounter(*before, *after, launches, seconds, work);
}

v1::Energy EnergyUnsupported(const std::string& why) {
  v1::Energy e;
  e.set_measured(false);
  e.set_unsupported(why);
  return e;
}

}  // namespace kbench::executor
