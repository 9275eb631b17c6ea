// Quotas and limits on what an owner may queue and keep: jobs queued or running at once, the
// longest timeout a job may ask for, GPU seconds per UTC day, bytes kept in the store, and a
// bound on the whole daemon's queue. Each owner's limits come from the auth file, else the
// daemon's defaults (which also apply to `local` in open mode and to admins). Over a limit:
// RESOURCE_EXHAUSTED naming the limit, the current value and when or how it frees up. Checked
// before a job (or a registered variant) is accepted; nothing already accepted is ever dropped
// by a limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/auth/auth_file.h"
#include "server/store/stored_bytes.h"

namespace CLI {
class App;
}

namespace kbench::api {

struct QuotaDefaults {
  // Per owner, unless the auth file says otherwise.
  int64_t max_queued_jobs = 100;
  int64_t max_timeout_seconds = 600;
  int64_t daily_gpu_seconds = 86400;
  // Bytes kept in the store (store::OwnerStoredBytes); 0: no bound. A job's spec holds its
  // kernels' code, up to 32 MiB a binary: 2 GiB is some sixty of the largest, or thousands of
  // jobs with CUDA sources.
  int64_t max_stored_bytes = int64_t{2} << 30;
  // All owners together (--max-queued-jobs).
  int64_t max_queued_jobs_total = 10000;
};

// The limits in force for one owner.
struct OwnerQuota {
  int64_t max_queued_jobs = 0;
  int64_t max_timeout_seconds = 0;
  int64_t daily_gpu_seconds = 0;
  int64_t max_stored_bytes = 0;  // 0: no bound
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

// OK, or RESOURCE_EXHAUSTED when storing `adding` more bytes would take `owner`, who keeps
// `kept`, past quota.max_stored_bytes (0: no bound); the refusal names the limit, what the owner
// keeps and how to free it.
absl::Status CheckStoredBytes(const std::string& owner, const OwnerQuota& quota,
                              const store::OwnerStoredBytes& kept, int64_t adding);

// --max-queued-jobs and the per-owner defaults' flags.
void AddQuotaFlags(CLI::App* app, QuotaDefaults* defaults);

}  // namespace kbench::api
