// Usage tables and queue places for people.
#include "client/format/usage_view.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/format/table.h"
#include "client/format/units.h"

namespace kbench::client {
namespace {

std::string GpuSeconds(double seconds) { return absl::StrFormat("%.1f", seconds); }

// Rounded the way a person says it: seconds under two minutes, then minutes, then hours.
std::string RoughDuration(double seconds) {
  if (seconds < 1) return "under a second";
  if (seconds < 120) return absl::StrCat(std::lround(seconds), " s");
  if (seconds < 7200) return absl::StrCat(std::lround(seconds / 60), " min");
  return absl::StrFormat("%.1f h", seconds / 3600);
}

}  // namespace

std::string Ordinal(int64_t n) {
  const int64_t last_two = n % 100;
  const char* suffix = "th";
  if (last_two < 11 || last_two > 13) {
    switch (n % 10) {
      case 1:
        suffix = "st";
        break;
      case 2:
        suffix = "nd";
        break;
      case 3:
        suffix = "rd";
        break;
      default:
        break;
    }
  }
  return absl::StrCat(n, suffix);
}

std::string DescribeQueuePlace(const v1::QueuePlace& place) {
  if (place.position() <= 0) return "";
  std::string line =
      place.position() == 1 ? "next in line" : absl::StrCat(Ordinal(place.position()), " in line");
  if (!place.device().empty()) absl::StrAppend(&line, " on ", place.device());
  // With nothing ahead and an idle device the job starts now: no estimate to give.
  if (place.jobs_ahead() > 0 || place.device_busy()) {
    absl::StrAppend(&line, ", about ", RoughDuration(place.estimated_wait_seconds()));
  }
  return line;
}

std::string RenderUsage(const v1::GetUsageResponse& usage) {
  Table table({"OWNER", "DECAYED-GPU-S", "SHARE", "TODAY-GPU-S", "TOTAL-GPU-S", "QUEUED", "RUNNING",
               "MAX-QUEUED", "DAILY-GPU-S", "MAX-TIMEOUT-S"});
  for (size_t c = 1; c < 10; ++c) table.AlignRight(c);
  for (const v1::OwnerUsage& o : usage.owners()) {
    table.AddRow({o.owner(), GpuSeconds(o.decayed_gpu_seconds()), FormatPercent(o.share()),
                  GpuSeconds(o.today_gpu_seconds()), GpuSeconds(o.total_gpu_seconds()),
                  absl::StrCat(o.queued_jobs()), absl::StrCat(o.running_jobs()),
                  absl::StrCat(o.limits().max_queued_jobs()),
                  absl::StrCat(o.limits().daily_gpu_seconds()),
                  absl::StrCat(o.limits().max_timeout_seconds())});
  }
  std::string out = table.rows() > 0 ? table.Render() : "No usage recorded yet.\n";
  absl::StrAppend(&out, "\nFair share: least decayed GPU time first (half-life ",
                  RoughDuration(usage.fair_share_half_life_seconds()), "); ", usage.queued_jobs(),
                  " of at most ", usage.max_queued_jobs(), " jobs queued or running.\n");
  return out;
}

}  // namespace kbench::client
