// Energy per launch (issue 29, item 1): how many launches resolve NVML's total-energy counter,
// and the joules, watts, FLOP/J and bytes/J of a batch. Device-independent: a device supplies
// its counter through EnergyCounter (the CUDA runner over NVML, tests a fake).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/conditions.pb.h"

namespace kbench::executor {

// A device's cumulative energy counter. Not thread-safe.
class EnergyCounter {
 public:
  virtual ~EnergyCounter() = default;
  // Millijoules since the driver loaded; nullopt when the device cannot say (then no energy).
  virtual std::optional<uint64_t> TotalMillijoules() = 0;
};

struct EnergyPlanOptions {
  // NVML's counter moves in steps, every ~20-100 ms depending on the GPU (the figure;
  // see also Yang, Adamek and Armour, "Part-time Power Measurements", arXiv 2312.02741). Each
  // end of a batch is then off by at most one step, so the error is at most 2 x period / span:
  // spanning ten updates bounds it by 20%, and the ends' errors are independent and usually far
  // smaller. Hence span = max(min_seconds, min_counter_updates x period).
  double counter_period_seconds = 0.1;
  int min_counter_updates = 10;
  double min_seconds = 0.5;
  // Never more than this much wall time on the phase (the job's budget decides).
  double max_seconds = 2.0;
  int64_t max_launches = int64_t{1} << 24;
};

// Launches of one batch for a per-launch time: enough to span max(min_seconds, updates x
// period), no more than max_seconds or max_launches; at least 1. 0 when the per-launch time is
// not positive (nothing known to plan with).
int64_t PlanEnergyLaunches(double per_launch_seconds, const EnergyPlanOptions& options);

// The cost model's work of one launch.
struct LaunchWork {
  int64_t flops = 0;
  int64_t bytes = 0;
};

// Joules per launch, average watts, FLOP/J and bytes/J from the counter's readings around
// `launches` launches that took `seconds` of wall time. A counter that did not move (the batch
// was shorter than one update) or went backwards is not a measurement: measured = false with
// the reason, never a zero.
v1::Energy EnergyFromCounter(uint64_t millijoules_before, uint64_t millijoules_after,
                             int64_t launches, double seconds, const LaunchWork& work);

// The energy phase of one variant: plans the batch from its per-launch time, reads the
// counter, has `launch_batch(n)` run n launches on the variant's buffers and wait for them,
// reads the counter again. A counter the device does not have gives measured = false (never an
// error); a failed launch is the error.
absl::StatusOr<v1::Energy> MeasureEnergy(
    EnergyCounter& counter, const std::function<absl::Status(int64_t launches)>& launch_batch,
    double per_launch_seconds, const LaunchWork& work, const EnergyPlanOptions& options,
    const std::function<double()>& now_seconds);

// A result that says energy was not measured, and why ("unsupported on cpu").
v1::Energy EnergyUnsupported(const std::string& why);

}  // namespace kbench::executor
