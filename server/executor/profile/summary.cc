// Aggregation of the profile phase's device work into the summary tables.
#include "server/executor/profile/summary.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/executor/profile/demangle.h"
#include "server/executor/profile/kernel_category.h"

namespace kbench::executor::profile {
namespace {

double Seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }

std::string TransferName(const TransferActivity& t) {
  if (t.kind == TransferActivity::Kind::kMemset) return "Memset";
  return t.copy_kind.empty() ? "Memcpy" : absl::StrCat("Memcpy ", t.copy_kind);
}

struct Accumulator {
  KernelRow row;
  bool first = true;
  std::string config;  // grid/block/shared of the first launch, to notice mixed configs

  void Add(uint64_t duration_ns) {
    const double s = Seconds(duration_ns);
    row.calls++;
    row.total_seconds += s;
    row.min_seconds = first ? s : std::min(row.min_seconds, s);
    row.max_seconds = first ? s : std::max(row.max_seconds, s);
    first = false;
  }
};

}  // namespace

std::string Dim3String(const int32_t v[3]) {
  return absl::StrCat("(", v[0], ", ", v[1], ", ", v[2], ")");
}

uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0, cur_start = 0, cur_end = 0;
  bool open = false;
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    if (!open || start > cur_end) {
      if (open) total += cur_end - cur_start;
      cur_start = start;
      cur_end = end;
      open = true;
    } else {
      cur_end = std::max(cur_end, end);
    }
  }
  if (open) total += cur_end - cur_start;
  return total;
}

namespace {

// Builds the summary in the steps Summarize() names. Work is attributed to the phase span and
// iteration span it was launched in (attribution.h); only the "profile" phase counts.
class SummaryBuilder {
 public:
  SummaryBuilder(const ActivityLog& log, const AttributedLog& attribution,
                 const SummaryOptions& options)
      : log_(log), attribution_(attribution), options_(options) {}

  // Variants in the order their profile phases ran, with their host (wall) time.
  void FindProfiledVariants() {
    for (const HostSpan& span : log_.spans) {
      if (span.phase != kPhaseProfile) continue;
      if (!variant_index_.contains(span.variant)) {
        variant_index_[span.variant] = summary_.variants.size();
        summary_.variants.emplace_back().variant = span.variant;
      }
      const double wall = Seconds(span.end_ns - span.start_ns);
      summary_.variants[variant_index_[span.variant]].wall_seconds += wall;
      summary_.wall_seconds += wall;
    }
  }

  // One GPU-time slot per recorded iteration, so that an iteration with no work shows as 0.
  void SizeIterations() {
    for (const HostSpan& span : log_.spans) {
      if (span.phase != kPhaseIteration || span.iteration < 0) continue;
      const auto v = variant_index_.find(span.variant);
      if (v == variant_index_.end()) continue;
      std::vector<double>& it = summary_.variants[v->second].iteration_gpu_seconds;
      const size_t needed = static_cast<size_t>(span.iteration) + 1;
      if (it.size() < needed) it.resize(needed, 0.0);
    }
  }

  void CountKernels() {
    for (size_t i = 0; i < log_.kernels.size(); ++i) {
      const KernelActivity& k = log_.kernels[i];
      if (!CountWork(attribution_.kernels[i], k.start_ns, k.end_ns, /*is_kernel=*/true)) continue;
      Accumulator& acc = by_name_[k.name];
      const std::string config =
          absl::StrCat(Dim3String(k.grid), Dim3String(k.block), k.dynamic_shared_bytes);
      if (acc.first) {
        acc.row = FirstLaunchRow(k);
        acc.config = config;
      } else if (config != acc.config) {
        acc.row.mixed_configs = true;
      }
      acc.Add(k.end_ns - k.start_ns);
    }
  }

  void CountTransfers() {
    for (size_t i = 0; i < log_.transfers.size(); ++i) {
      const TransferActivity& t = log_.transfers[i];
      if (!CountWork(attribution_.transfers[i], t.start_ns, t.end_ns, /*is_kernel=*/false)) {
        continue;
      }
      const std::string name = TransferName(t);
      Accumulator& acc = by_name_[name];
      if (acc.first) {
        acc.row.name = acc.row.mangled_name = name;
        acc.row.category = kCategoryCopy;
        acc.row.is_transfer = true;
      }
      acc.row.bytes += t.bytes;
      acc.Add(t.end_ns - t.start_ns);
    }
  }

  // The kernel table: means, the total GPU time, each row's share of it, largest first.
  void TabulateRows() {
    for (auto& [key, acc] : by_name_) {
      KernelRow& r = acc.row;
      r.mean_seconds = r.total_seconds / static_cast<double>(r.calls);
      summary_.gpu_seconds += r.total_seconds;
      summary_.rows.push_back(std::move(r));
    }
    by_name_.clear();
    for (KernelRow& r : summary_.rows) {
      r.percent_of_gpu_time = PercentOfGpuTime(r.total_seconds);
    }
    std::stable_sort(
        summary_.rows.begin(), summary_.rows.end(),
        [](const KernelRow& a, const KernelRow& b) { return a.total_seconds > b.total_seconds; });
  }

  // The category table, from the kernel table's rows, largest first.
  void TabulateCategories() {
    std::map<std::string, CategoryRow> categories;
    for (const KernelRow& r : summary_.rows) {
      CategoryRow& c = categories[r.category];
      c.category = r.category;
      c.calls += r.calls;
      c.total_seconds += r.total_seconds;
    }
    for (auto& [name, c] : categories) {
      c.percent_of_gpu_time = PercentOfGpuTime(c.total_seconds);
      summary_.categories.push_back(c);
    }
    std::stable_sort(summary_.categories.begin(), summary_.categories.end(),
                     [](const CategoryRow& a, const CategoryRow& b) {
                       return a.total_seconds > b.total_seconds;
                     });
  }

  // The share of the profile phases' wall time in which the device was doing any of the work.
  void MeasureBusyShare() {
    summary_.busy_seconds = Seconds(UnionLength(std::move(busy_)));
    if (summary_.wall_seconds > 0) {
      summary_.gpu_busy_fraction = summary_.busy_seconds / summary_.wall_seconds;
    }
  }

  ProfileSummary Take() { return std::move(summary_); }

 private:
  const HostSpan* SpanAt(int index) const {
    return index < 0 ? nullptr : &log_.spans[static_cast<size_t>(index)];
  }

  double PercentOfGpuTime(double seconds) const {
    return summary_.gpu_seconds > 0 ? 100 * seconds / summary_.gpu_seconds : 0;
  }

  // Counts one piece of work against its variant, its iteration and the busy time; false
  // (nothing counted) for work of other phases.
  bool CountWork(const Attribution& a, uint64_t start, uint64_t end, bool is_kernel) {
    const HostSpan* phase = SpanAt(a.phase_span);
    if (phase == nullptr || phase->phase != kPhaseProfile) return false;
    VariantProfile& v = summary_.variants[variant_index_[phase->variant]];
    (is_kernel ? v.kernels : v.transfers)++;
    const HostSpan* iteration = SpanAt(a.iteration_span);
    if (iteration != nullptr && iteration->variant == phase->variant && iteration->iteration >= 0 &&
        static_cast<size_t>(iteration->iteration) < v.iteration_gpu_seconds.size()) {
      v.iteration_gpu_seconds[static_cast<size_t>(iteration->iteration)] += Seconds(end - start);
    }
    // Busy time is measured inside the phase's wall span.
    busy_.emplace_back(std::max(start, phase->start_ns), std::min(end, phase->end_ns));
    return true;
  }

  // A kernel's row with the resources and launch configuration of its first launch.
  KernelRow FirstLaunchRow(const KernelActivity& k) const {
    KernelRow r;
    r.mangled_name = k.name;
    r.name = Demangle(k.name);
    r.category = CategorizeKernel(options_.operation, r.name);
    r.registers_per_thread = k.registers_per_thread;
    r.static_shared_bytes = k.static_shared_bytes;
    r.dynamic_shared_bytes = k.dynamic_shared_bytes;
    r.local_bytes_per_thread = k.local_bytes_per_thread;
    r.grid = Dim3String(k.grid);
    r.block = Dim3String(k.block);
    if (auto f = log_.functions.find(k.name); f != log_.functions.end()) {
      r.max_threads_per_block = f->second.max_threads_per_block;
    }
    if (options_.limits.has_value()) {
      r.occupancy = TheoreticalOccupancy(*options_.limits,
                                         {.threads_per_block = k.block[0] * k.block[1] * k.block[2],
                                          .registers_per_thread = k.registers_per_thread,
                                          .static_shared_bytes = k.static_shared_bytes,
                                          .dynamic_shared_bytes = k.dynamic_shared_bytes});
    }
    return r;
  }

  const ActivityLog& log_;
  const AttributedLog& attribution_;
  const SummaryOptions& options_;
  ProfileSummary summary_;
  std::map<std::string, size_t> variant_index_;
  std::map<std::string, Accumulator> by_name_;  // key: mangled kernel name or transfer name
  std::vector<std::pair<uint64_t, uint64_t>> busy_;
};

}  // namespace

ProfileSummary Summarize(const ActivityLog& log, const AttributedLog& attribution,
                         const SummaryOptions& options) {
  SummaryBuilder summary(log, attribution, options);
  summary.FindProfiledVariants();
  summary.SizeIterations();
  summary.CountKernels();
  summary.CountTransfers();
  summary.TabulateRows();
  summary.TabulateCategories();
  summary.MeasureBusyShare();
  return summary.Take();
}

void FillProfileResult(const ProfileSummary& summary, v1::ProfileResult* out) {
  for (const KernelRow& r : summary.rows) {
    v1::ProfileKernelRow* row = out->add_kernels();
    row->set_name(r.name);
    row->set_category(r.category);
    row->set_calls(r.calls);
    row->set_total_seconds(r.total_seconds);
    row->set_mean_seconds(r.mean_seconds);
    row->set_min_seconds(r.min_seconds);
    row->set_max_seconds(r.max_seconds);
    row->set_percent_of_gpu_time(r.percent_of_gpu_time);
    if (r.is_transfer) continue;
    row->set_registers_per_thread(r.registers_per_thread);
    row->set_static_shared_bytes(r.static_shared_bytes);
    row->set_dynamic_shared_bytes(r.dynamic_shared_bytes);
    row->set_local_bytes_per_thread(r.local_bytes_per_thread);
    row->set_theoretical_occupancy(r.occupancy.fraction);
    row->set_grid(r.grid);
    row->set_block(r.block);
    row->set_max_threads_per_block(r.max_threads_per_block);
  }
  for (const CategoryRow& c : summary.categories) {
    v1::ProfileCategoryRow* row = out->add_categories();
    row->set_category(c.category);
    row->set_total_seconds(c.total_seconds);
    row->set_percent_of_gpu_time(c.percent_of_gpu_time);
    row->set_kernels(c.calls);
  }
  out->set_gpu_busy_fraction(summary.gpu_busy_fraction);
  out->set_wall_seconds(summary.wall_seconds);
  out->set_gpu_seconds(summary.gpu_seconds);
}

std::string FormatDuration(double seconds) {
  if (seconds < 1e-3) return absl::StrFormat("%.3fus", seconds * 1e6);
  if (seconds < 1) return absl::StrFormat("%.3fms", seconds * 1e3);
  return absl::StrFormat("%.3fs", seconds);
}

std::string FormatSummaryText(const ProfileSummary& summary, const std::string& title) {
  std::string out = title + "\n\n";
  constexpr size_t kNameWidth = 56;
  const auto clip = [](const std::string& s, size_t n) {
    return s.size() <= n ? s : s.substr(0, n - 3) + "...";
  };
  absl::StrAppendFormat(&out, "%-*s %-11s %6s %11s %11s %11s %11s %6s %4s %8s %8s %5s %9s %5s\n",
                        kNameWidth, "Name", "Category", "Calls", "Total", "Mean", "Min", "Max",
                        "%GPU", "Regs", "SmemStat", "SmemDyn", "Local", "MaxThr/B", "Occ");
  for (const KernelRow& r : summary.rows) {
    absl::StrAppendFormat(
        &out, "%-*s %-11s %6d %11s %11s %11s %11s %5.1f%%", kNameWidth, clip(r.name, kNameWidth),
        r.category, r.calls, FormatDuration(r.total_seconds), FormatDuration(r.mean_seconds),
        FormatDuration(r.min_seconds), FormatDuration(r.max_seconds), r.percent_of_gpu_time);
    if (r.is_transfer) {
      absl::StrAppendFormat(&out, "  (%d bytes)\n", r.bytes);
      continue;
    }
    absl::StrAppendFormat(&out, " %4d %8d %8d %5d %9s %4.0f%%\n", r.registers_per_thread,
                          r.static_shared_bytes, r.dynamic_shared_bytes, r.local_bytes_per_thread,
                          r.max_threads_per_block > 0 ? absl::StrCat(r.max_threads_per_block) : "?",
                          100 * r.occupancy.fraction);
  }
  absl::StrAppendFormat(&out, "\nLaunch configurations (grid x block) and occupancy limits:\n");
  for (const KernelRow& r : summary.rows) {
    if (r.is_transfer) continue;
    absl::StrAppendFormat(
        &out, "  %s: grid %s block %s%s; %d blocks/SM (%s)\n", clip(r.name, kNameWidth), r.grid,
        r.block, r.mixed_configs ? " (first of several configs)" : "", r.occupancy.blocks_per_sm,
        r.occupancy.limiter.empty() ? "device limits unknown" : r.occupancy.limiter);
  }
  absl::StrAppendFormat(&out, "\n%-12s %8s %11s %6s\n", "Category", "Calls", "Total", "%GPU");
  for (const CategoryRow& c : summary.categories) {
    absl::StrAppendFormat(&out, "%-12s %8d %11s %5.1f%%\n", c.category, c.calls,
                          FormatDuration(c.total_seconds), c.percent_of_gpu_time);
  }
  absl::StrAppendFormat(&out, "\nGPU busy %.1f%% of %s wall time (%s of device work, %s summed)\n",
                        100 * summary.gpu_busy_fraction, FormatDuration(summary.wall_seconds),
                        FormatDuration(summary.busy_seconds), FormatDuration(summary.gpu_seconds));
  for (const VariantProfile& v : summary.variants) {
    std::vector<double> sorted = v.iteration_gpu_seconds;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
    absl::StrAppendFormat(&out,
                          "variant %s: %d iterations, %d kernels, %d transfers, GPU time per "
                          "iteration median %s\n",
                          v.variant, v.iteration_gpu_seconds.size(), v.kernels, v.transfers,
                          FormatDuration(median));
  }
  return out;
}

nlohmann::json SummaryToJson(const ProfileSummary& summary) {
  nlohmann::json j;
  j["gpu_seconds"] = summary.gpu_seconds;
  j["wall_seconds"] = summary.wall_seconds;
  j["busy_seconds"] = summary.busy_seconds;
  j["gpu_busy_fraction"] = summary.gpu_busy_fraction;
  j["kernels"] = nlohmann::json::array();
  for (const KernelRow& r : summary.rows) {
    nlohmann::json row = {{"name", r.name},
                          {"mangled_name", r.mangled_name},
                          {"category", r.category},
                          {"calls", r.calls},
                          {"total_seconds", r.total_seconds},
                          {"mean_seconds", r.mean_seconds},
                          {"min_seconds", r.min_seconds},
                          {"max_seconds", r.max_seconds},
                          {"percent_of_gpu_time", r.percent_of_gpu_time}};
    if (r.is_transfer) {
      row["bytes"] = r.bytes;
    } else {
      row["registers_per_thread"] = r.registers_per_thread;
      row["static_shared_bytes"] = r.static_shared_bytes;
      row["dynamic_shared_bytes"] = r.dynamic_shared_bytes;
      row["local_bytes_per_thread"] = r.local_bytes_per_thread;
      row["max_threads_per_block"] = r.max_threads_per_block;
      row["grid"] = r.grid;
      row["block"] = r.block;
      row["mixed_configs"] = r.mixed_configs;
      row["theoretical_occupancy"] = r.occupancy.fraction;
      row["blocks_per_sm"] = r.occupancy.blocks_per_sm;
      row["occupancy_limiter"] = r.occupancy.limiter;
    }
    j["kernels"].push_back(std::move(row));
  }
  j["categories"] = nlohmann::json::array();
  for (const CategoryRow& c : summary.categories) {
    j["categories"].push_back({{"category", c.category},
                               {"calls", c.calls},
                               {"total_seconds", c.total_seconds},
                               {"percent_of_gpu_time", c.percent_of_gpu_time}});
  }
  j["variants"] = nlohmann::json::array();
  for (const VariantProfile& v : summary.variants) {
    j["variants"].push_back({{"variant", v.variant},
                             {"kernels", v.kernels},
                             {"transfers", v.transfers},
                             {"wall_seconds", v.wall_seconds},
                             {"iteration_gpu_seconds", v.iteration_gpu_seconds}});
  }
  return j;
}

}  // namespace kbench::executor::profile
