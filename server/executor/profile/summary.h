// The profile's tables: per kernel name (PyTorch profiler's key_averages: calls, total, mean,
// min, max, % of GPU time, sorted by total) with each kernel's resources, the breakdown by
// category, the share of wall time the GPU was busy, and each variant's GPU time per
// iteration. Only work launched inside the "profile" phase counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kbench/v1/types.pb.h"
#include "nlohmann/json.hpp"
#include "server/executor/profile/activity.h"
#include "server/executor/profile/attribution.h"
#include "server/executor/profile/occupancy.h"

namespace kbench::executor::profile {

struct SummaryOptions {
  // The catalogue operation the job ran (for the category rule).
  std::string operation;
  // The device's limits, for theoretical occupancy (absent: occupancy left at 0).
  std::optional<DeviceLimits> limits;
};

struct KernelRow {
  // Demangled kernel name, or "Memcpy DtoD" / "Memset" for transfers.
  std::string name;
  std::string mangled_name;
  std::string category;
  bool is_transfer = false;
  int64_t calls = 0;
  double total_seconds = 0;
  double mean_seconds = 0;
  double min_seconds = 0;
  double max_seconds = 0;
  double percent_of_gpu_time = 0;
  // Transfers: bytes moved in all calls.
  uint64_t bytes = 0;
  // Kernels: resources and launch configuration of the first launch.
  int registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;
  int max_threads_per_block = 0;  // 0 when the function could not be queried
  std::string grid;
  std::string block;
  // True when launches of this kernel used more than one grid/block/shared-memory config.
  bool mixed_configs = false;
  Occupancy occupancy;
};

struct CategoryRow {
  std::string category;
  int64_t calls = 0;
  double total_seconds = 0;
  double percent_of_gpu_time = 0;
};

struct VariantProfile {
  std::string variant;
  // GPU time (kernels + transfers, summed) of each recorded iteration, in order.
  std::vector<double> iteration_gpu_seconds;
  int64_t kernels = 0;
  int64_t transfers = 0;
  // Host time of the variant's profile phase.
  double wall_seconds = 0;
};

struct ProfileSummary {
  std::vector<KernelRow> rows;           // sorted by total time, largest first
  std::vector<CategoryRow> categories;   // sorted by total time, largest first
  std::vector<VariantProfile> variants;  // in the order the job ran them
  double gpu_seconds = 0;                // sum of all rows' totals
  double wall_seconds = 0;               // host time of all profile phases
  double busy_seconds = 0;       // union of the device work's intervals inside the profile phases
  double gpu_busy_fraction = 0;  // busy_seconds / wall_seconds
};

ProfileSummary Summarize(const ActivityLog& log, const AttributedLog& attribution,
                         const SummaryOptions& options);

// Length of the union of [start, end) intervals (ns); overlapping intervals count once.
uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals);

// "(x, y, z)".
std::string Dim3String(const int32_t v[3]);

void FillProfileResult(const ProfileSummary& summary, v1::ProfileResult* out);

// The summary for people: kernel table, category table, busy share, per-variant GPU time.
std::string FormatSummaryText(const ProfileSummary& summary, const std::string& title);

nlohmann::json SummaryToJson(const ProfileSummary& summary);

// "12.345us", "1.234ms", "1.234s".
std::string FormatDuration(double seconds);

}  // namespace kbench::executor::profile
