// Quota decisions and their flags.
#include "server/api/quotas.h"

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/scheduler/usage_ledger.h"

namespace kbench::api {

OwnerQuota QuotaFor(const QuotaDefaults& defaults, const std::optional<auth::Limits>& listed) {
  OwnerQuota q{defaults.max_queued_jobs, defaults.max_timeout_seconds, defaults.daily_gpu_seconds,
               defaults.max_stored_bytes};
  if (!listed) return q;
  q.max_queued_jobs = listed->max_queued_jobs.value_or(q.max_queued_jobs);
  q.max_timeout_seconds = listed->max_timeout_seconds.value_or(q.max_timeout_seconds);
  q.daily_gpu_seconds = listed->daily_gpu_seconds.value_or(q.daily_gpu_seconds);
  q.max_stored_bytes = listed->max_stored_bytes.value_or(q.max_stored_bytes);
  return q;
}

absl::Status CheckQuota(const std::string& owner, const OwnerQuota& quota,
                        int64_t max_queued_jobs_total, double timeout_seconds,
                        const QuotaUse& use) {
  if (timeout_seconds > static_cast<double>(quota.max_timeout_seconds)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "limit max_timeout_seconds of '", owner, "' is ", quota.max_timeout_seconds,
        " s and this job asks for stopping.timeout_seconds ", timeout_seconds, "; ask for at most ",
        quota.max_timeout_seconds, " s (the limit does not free up)"));
  }
  if (use.owner_unfinished >= quota.max_queued_jobs) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "limit max_queued_jobs of '", owner, "' is ", quota.max_queued_jobs, " and '", owner,
        "' has ", use.owner_unfinished,
        " jobs queued or running; it frees up as soon as one of them finishes or is cancelled"));
  }
  if (use.all_unfinished >= max_queued_jobs_total) {
    return absl::ResourceExhaustedError(
        absl::StrCat("limit --max-queued-jobs of this kbenchd is ", max_queued_jobs_total, " and ",
                     use.all_unfinished,
                     " jobs are queued or running; it frees up as soon as one of them finishes"));
  }
  if (use.owner_today_gpu_seconds >= static_cast<double>(quota.daily_gpu_seconds)) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "limit daily_gpu_seconds of '%s' is %d and '%s' used %.1f GPU seconds today (UTC); it "
        "frees up at %s",
        owner, quota.daily_gpu_seconds, owner, use.owner_today_gpu_seconds,
        absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", scheduler::NextUtcMidnight(use.now),
                         absl::UTCTimeZone())));
  }
  return absl::OkStatus();
}

namespace {

// "512.0 KiB", "3.8 MiB", "2.0 GiB": for a person; the exact count is given beside it.
std::string Readable(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= int64_t{1} << 30) return absl::StrFormat("%.1f GiB", b / (1 << 30));
  if (bytes >= int64_t{1} << 20) return absl::StrFormat("%.1f MiB", b / (1 << 20));
  return absl::StrFormat("%.1f KiB", b / (1 << 10));
}

}  // namespace

absl::Status CheckStoredBytes(const std::string& owner, const OwnerQuota& quota,
                              const store::OwnerStoredBytes& kept, int64_t adding) {
  if (quota.max_stored_bytes == 0 || kept.total() + adding <= quota.max_stored_bytes) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "limit max_stored_bytes of '", owner, "' is ", quota.max_stored_bytes, " bytes (",
      Readable(quota.max_stored_bytes), ") and '", owner, "' keeps ", kept.total(), " bytes (",
      Readable(kept.total()), ": job specs ", Readable(kept.job_specs), ", their artifacts ",
      Readable(kept.artifacts), ", registered variants ", Readable(kept.variants), ", sweeps ",
      Readable(kept.sweeps), ", kernels' code kept once ", Readable(kept.code), "); this needs ",
      adding, " bytes (", Readable(adding),
      ") more; it frees up as finished jobs are removed (kbctl jobs rm JOB_ID; a sweep's points go "
      "with it: kbctl sweep rm SWEEP) and registered variants too (kbctl variants rm OPERATION "
      "NAME)"));
}

void AddQuotaFlags(CLI::App* app, QuotaDefaults* defaults) {
  app->add_option("--max-queued-jobs", defaults->max_queued_jobs_total,
                  "Jobs queued or running on this kbenchd (in a fleet: on every node), all "
                  "owners (beyond: RESOURCE_EXHAUSTED)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--default-max-queued-jobs", defaults->max_queued_jobs,
                  "Per owner, unless the auth file's limits say otherwise: jobs queued or running")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--default-max-timeout-seconds", defaults->max_timeout_seconds,
                  "Per owner, unless the auth file says otherwise: longest job timeout")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--default-daily-gpu-seconds", defaults->daily_gpu_seconds,
                  "Per owner, unless the auth file says otherwise: GPU seconds per UTC day")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--default-max-stored-bytes", defaults->max_stored_bytes,
                  "Per owner, unless the auth file says otherwise: bytes kept in the store (jobs' "
                  "specs with their kernels' code, jobs' artifacts, registered variants, sweeps); "
                  "0: no bound")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

}  // namespace kbench::api
