// Profile tables for kbctl's table output.
#include "client/format/profile_view.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/format/table.h"
#include "client/format/units.h"

namespace kbench::client {
namespace {

// Demangled template kernels run to hundreds of characters; -o json has the full names.
constexpr size_t kMaxNameWidth = 60;

std::string Count(int64_t n) { return n > 0 ? absl::StrCat(n) : "-"; }

std::string PercentOf100(double percent) {
  return percent > 0 ? absl::StrFormat("%.1f%%", percent) : "-";
}

}  // namespace

std::string RenderProfile(const v1::ProfileResult& profile) {
  std::vector<const v1::ProfileKernelRow*> rows;
  for (const v1::ProfileKernelRow& r : profile.kernels()) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->total_seconds() > b->total_seconds();
  });

  Table summary({"KERNEL", "CATEGORY", "CALLS", "TOTAL", "MEAN", "MIN", "MAX", "%GPU"});
  summary.SetMaxWidth(0, kMaxNameWidth);
  for (size_t c = 2; c < 8; ++c) summary.AlignRight(c);
  Table resources({"KERNEL", "GRID", "BLOCK", "REGS", "SHARED(STATIC+DYN)", "LOCAL", "MAX-THREADS",
                   "OCCUPANCY"});
  resources.SetMaxWidth(0, kMaxNameWidth);
  for (size_t c = 3; c < 8; ++c) resources.AlignRight(c);
  for (const v1::ProfileKernelRow* r : rows) {
    summary.AddRow({r->name(), r->category(), absl::StrCat(r->calls()),
                    FormatSeconds(r->total_seconds()), FormatSeconds(r->mean_seconds()),
                    FormatSeconds(r->min_seconds()), FormatSeconds(r->max_seconds()),
                    PercentOf100(r->percent_of_gpu_time())});
    resources.AddRow({r->name(), r->grid().empty() ? "-" : r->grid(),
                      r->block().empty() ? "-" : r->block(), Count(r->registers_per_thread()),
                      absl::StrCat(FormatBytes(r->static_shared_bytes()), " + ",
                                   FormatBytes(r->dynamic_shared_bytes())),
                      FormatBytes(r->local_bytes_per_thread()), Count(r->max_threads_per_block()),
                      FormatPercent(r->theoretical_occupancy())});
  }

  Table categories({"CATEGORY", "KERNELS", "TOTAL", "%GPU"});
  for (size_t c = 1; c < 4; ++c) categories.AlignRight(c);
  std::vector<const v1::ProfileCategoryRow*> cats;
  for (const v1::ProfileCategoryRow& c : profile.categories()) cats.push_back(&c);
  std::stable_sort(cats.begin(), cats.end(), [](const auto* a, const auto* b) {
    return a->total_seconds() > b->total_seconds();
  });
  for (const v1::ProfileCategoryRow* c : cats) {
    categories.AddRow({c->category(), absl::StrCat(c->kernels()), FormatSeconds(c->total_seconds()),
                       PercentOf100(c->percent_of_gpu_time())});
  }

  std::string out =
      absl::StrCat("Kernels (by total GPU time):\n", summary.Render(), "\nKernel resources:\n",
                   resources.Render(), "\nBy category:\n", categories.Render());
  absl::StrAppend(&out, "\nGPU busy: ", FormatPercent(profile.gpu_busy_fraction()), " of ",
                  FormatSeconds(profile.wall_seconds()), " wall (",
                  FormatSeconds(profile.gpu_seconds()), " of kernels and copies)\n");
  if (!profile.ncu().empty()) {
    Table ncu({"KERNEL", "DURATION", "DRAM%", "SM%", "OCCUPANCY", "L2-HIT"});
    ncu.SetMaxWidth(0, kMaxNameWidth);
    for (size_t c = 1; c < 6; ++c) ncu.AlignRight(c);
    for (const v1::NcuMetrics& m : profile.ncu()) {
      ncu.AddRow(
          {m.kernel(), FormatSeconds(m.duration_seconds()),
           PercentOf100(m.dram_throughput_percent()), PercentOf100(m.sm_throughput_percent()),
           PercentOf100(m.achieved_occupancy_percent()), PercentOf100(m.l2_hit_rate_percent())});
    }
    absl::StrAppend(&out, "\nNsight Compute:\n", ncu.Render());
  }
  return out;
}

}  // namespace kbench::client
