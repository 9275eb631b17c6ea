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
// What `kbctl diff --explain` compares (issue 26, item 6). Names as Nsight Compute's metric
// reference gives them for Volta and later, Hopper (sm_90) included; a name the GPU lacks
// would fail the whole ncu run, so only metrics every supported architecture has are listed.
inline constexpr char kNcuDramReadBytes[] = "dram__bytes_read.sum";
inline constexpr char kNcuDramWriteBytes[] = "dram__bytes_write.sum";
inline constexpr char kNcuL2Bytes[] = "lts__t_bytes.sum";
inline constexpr char kNcuInstructions[] = "smsp__inst_executed.sum";
inline constexpr char kNcuRegisters[] = "launch__registers_per_thread";
inline constexpr char kNcuLocalLoadBytes[] = "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum";
inline constexpr char kNcuLocalStoreBytes[] = "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";
// Stall reasons are smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio, the
// breakdown of ncu's Warp State Statistics section ("selected" and "not_selected" are left
// out: they are issue slots, not stalls).
inline constexpr char kNcuStallPrefix[] = "smsp__average_warps_issue_stalled_";
inline constexpr char kNcuStallSuffix[] = "_per_issue_active.ratio";
// How many stall reasons a kernel's NcuMetrics keeps, largest first.
inline constexpr int kNcuTopStallReasons = 4;

// The stall reasons asked for, in ncu's own words (e.g. "long_scoreboard").
const std::vector<std::string>& NcuStallReasons();

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
