// Quotas and limits on what an owner may queue: jobs queued or running at once, the longest
// timeout a job may ask for, GPU seconds per UTC day, and a bound on the whole daemon's queue.
// Each owner's limits come from the auth file, else the daemon's defaults (which also apply to
// `local` in open mode and to admins). Over a limit: RESOURCE_EXHAUSTED naming the limit, the
// current value and when it frees up. Checked before a job is accepted; nothing already
// accepted is ever dropped by a limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/auth/auth_file.h"

namespace CLI {
class App;
}

namespace kbench::api {

struct QuotaDefaults {
  // Per owner, unless the auth file says otherwise.
  int64_t max_queued_jobs = 100;
  int64_t max_timeout_seconds = 600;
  int64_t daily_gpu_seconds = 86400;
  // All owners together (--max-queued-jobs).
  int64_t max_queued_jobs_total = 10000;
};

// The limits in force for one owner.
struct OwnerQuota {
  int64_t max_queued_jobs = 0;
  int64_t max_timeout_seconds = 0;
  int64_t daily_gpu_seconds = 0;
};
OwnerQuota QuotaFor(const QuotaDefaults& defaults, const std::optional<auth::Limits>& listed);

// What a submit would add to, at the time it is checked.
struct QuotaUse {
  int64_t owner_unfinished = 0;  // the owner's jobs queued or running
  int64_t all_unfinished = 0;    // everyone's
  double owner_today_gpu_seconds = 0;
  absl::Time now;
};

// OK, or RESOURCE_EXHAUSTED for the first limit a new job of `owner` asking for
// `timeout_seconds` would pass.
absl::Status CheckQuota(const std::string& owner, const OwnerQuota& quota,
                        int64_t max_queued_jobs_total, double timeout_seconds, const QuotaUse& use);

// --max-queued-jobs and the per-owner defaults' flags.
void AddQuotaFlags(CLI::App* app, QuotaDefaults* defaults);

}  // namespace kbench::api
