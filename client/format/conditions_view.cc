// Energy and clean-stamp lines for kbctl's views.
#include "client/format/conditions_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kbench::client {

std::string FormatJoules(double joules) {
  if (joules >= 1) return absl::StrFormat("%.3g J", joules);
  if (joules >= 1e-3) return absl::StrFormat("%.3g mJ", joules * 1e3);
  if (joules >= 1e-6) return absl::StrFormat("%.3g uJ", joules * 1e6);
  return absl::StrFormat("%.3g nJ", joules * 1e9);
}

std::string EnergySummary(const v1::Energy& energy) {
  if (!energy.measured()) {
    return energy.unsupported().empty() ? "not measured" : energy.unsupported();
  }
  std::string line = absl::StrCat(FormatJoules(energy.joules_per_launch()), "/launch, ",
                                  absl::StrFormat("%.0f W", energy.average_watts()));
  if (energy.flops_per_joule() > 0) {
    absl::StrAppend(&line, absl::StrFormat(", %.3g GFLOP/J", energy.flops_per_joule() / 1e9));
  }
  if (energy.bytes_per_joule() > 0) {
    absl::StrAppend(&line, absl::StrFormat(", %.3g GB/J", energy.bytes_per_joule() / 1e9));
  }
  absl::StrAppend(&line,
                  absl::StrFormat(" (%d launches in %.2f s)", energy.launches(), energy.seconds()));
  return line;
}

std::string EnergyCell(const v1::Energy& energy) {
  return energy.measured() ? FormatJoules(energy.joules_per_launch()) : "-";
}

std::string StampSummary(const v1::CleanStamp& stamp) {
  if (!stamp.stamped()) return "-";
  std::string line =
      stamp.clean() ? "clean" : absl::StrCat("NOT CLEAN: ", absl::StrJoin(stamp.details(), "; "));
  // A device stamp (NVML readings taken) whose driver could not watch Xid events says so: its
  // "clean" then vouches for no Xid.
  if (stamp.readings() > 0 && !stamp.xid_watched()) absl::StrAppend(&line, "; Xids not watched");
  if (stamp.thermal_gate()) {
    absl::StrAppend(&line, absl::StrFormat("; thermal gate waited %.1f s, %d pauses",
                                           stamp.thermal_wait_seconds(), stamp.thermal_pauses()));
  }
  return line;
}

std::string StampCell(const v1::CleanStamp& stamp) {
  if (!stamp.stamped()) return "-";
  return stamp.clean() ? "clean" : absl::StrCat("NOT CLEAN (", stamp.reasons_size(), ")");
}

std::string EnergyTradeOff(double baseline_seconds, std::optional<double> baseline_joules,
                           double candidate_seconds, std::optional<double> candidate_joules) {
  if (!baseline_joules || !candidate_joules || *baseline_joules <= 0 || baseline_seconds <= 0) {
    return "";
  }
  const double time_change = candidate_seconds / baseline_seconds - 1;
  const double energy_change = *candidate_joules / *baseline_joules - 1;
  if (time_change < 0 && energy_change > 0) {
    return absl::StrFormat("faster by %.1f%% but uses %.1f%% more energy per launch (%s vs %s)",
                           -100 * time_change, 100 * energy_change, FormatJoules(*candidate_joules),
                           FormatJoules(*baseline_joules));
  }
  if (time_change > 0 && energy_change < 0) {
    return absl::StrFormat("slower by %.1f%% but uses %.1f%% less energy per launch (%s vs %s)",
                           100 * time_change, -100 * energy_change, FormatJoules(*candidate_joules),
                           FormatJoules(*baseline_joules));
  }
  return "";
}

}  // namespace kbench::client
