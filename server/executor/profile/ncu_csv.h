// Reading Nsight Compute's raw page (`ncu --import R --csv --page raw --print-units base`):
// one row per profiled launch, a header row of metric names and a row of their units.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"

namespace kbench::executor::profile {

// The metrics a profile asks Nsight Compute for.
inline constexpr char kNcuDuration[] = "gpu__time_duration.sum";
inline constexpr char kNcuDramThroughput[] =
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr char kNcuSmThroughput[] = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr char kNcuAchievedOccupancy[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr char kNcuL2HitRate[] = "lts__t_sector_hit_rate.pct";

// Comma-separated, for --metrics.
std::string NcuMetricList();

struct NcuLaunch {
  std::string kernel;
  // Metric name → value; times converted to seconds, percentages left in percent.
  std::map<std::string, double> values;
};

// Rows of the raw page, in order. Lines before the header (ncu's ==PROF== notes) are skipped.
// INVALID_ARGUMENT when there is no header or a row does not match it.
absl::StatusOr<std::vector<NcuLaunch>> ParseNcuRawCsv(const std::string& csv);

// One NcuMetrics per kernel name (first-seen order), each metric the mean over its launches.
std::vector<v1::NcuMetrics> SummarizeNcu(const std::vector<NcuLaunch>& launches);

// Splits one CSV line (RFC 4180 quoting) into fields.
std::vector<std::string> SplitCsvLine(const std::string& line);

}  // namespace kbench::executor::profile
