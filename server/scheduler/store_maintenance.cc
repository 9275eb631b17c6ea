// The maintenance pass and its timer.
#include "server/scheduler/store_maintenance.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/common/logging.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

absl::StatusOr<absl::Duration> ParseRetention(const std::string& text) {
  const auto invalid = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text,
                     "' is not a retention; give a whole number with a unit: 90d, 12h, 30m, 3600s, "
                     "or 0 to keep jobs forever"));
  };
  if (text == "0") return absl::ZeroDuration();
  if (text.size() < 2) return invalid();
  int64_t count = 0;
  if (!absl::SimpleAtoi(absl::string_view(text).substr(0, text.size() - 1), &count) || count < 0) {
    return invalid();
  }
  switch (text.back()) {
    case 'd':
      return absl::Hours(24) * count;
    case 'h':
      return absl::Hours(count);
    case 'm':
      return absl::Minutes(count);
    case 's':
      return absl::Seconds(count);
    default:
      return invalid();
  }
}

StoreMaintenance::StoreMaintenance(MaintenanceOptions options, Clock* clock,
                                   store::ResilientJobStore* jobs, store::ArtifactStore* artifacts)
    : options_(options), clock_(clock), jobs_(jobs), artifacts_(artifacts) {}

StoreMaintenance::~StoreMaintenance() { Stop(); }

bool StoreMaintenance::WriteHeldWrites() {
  // Held artifacts before held terminal states: a job recorded SUCCEEDED must have them.
  if (absl::StatusOr<int64_t> written = artifacts_->WriteHeldArtifacts(); !written.ok()) {
    return false;
  }
  return jobs_->RetryPendingWrites().ok();
}

MaintenanceReport StoreMaintenance::RunOnce() {
  MaintenanceReport report;
  if (!WriteHeldWrites()) {
    // Pruning writes too: nothing more to do until the store takes writes.
    report.store_writable = false;
    return report;
  }
  const absl::Time now = clock_->Now();
  if (absl::StatusOr<int64_t> freed = artifacts_->ApplyRetention(absl::ToUnixNanos(now));
      freed.ok()) {
    report.freed_artifact_bytes = *freed;
  } else {
    logging::Log(Level::kError, "artifact retention failed",
                 {Field("error", freed.status().ToString())});
  }
  if (options_.job_retention > absl::ZeroDuration()) {
    const int64_t cutoff = absl::ToUnixNanos(now - options_.job_retention);
    if (absl::StatusOr<int64_t> pruned = artifacts_->PruneJobsFinishedBefore(cutoff); pruned.ok()) {
      report.pruned_jobs = *pruned;
    } else {
      logging::Log(Level::kError, "pruning old jobs failed",
                   {Field("error", pruned.status().ToString())});
    }
  }
  if (report.pruned_jobs > 0 || report.freed_artifact_bytes > 0) {
    logging::Log(Level::kInfo, "store maintenance",
                 {Field("pruned_jobs", report.pruned_jobs),
                  Field("freed_artifact_bytes", report.freed_artifact_bytes)});
  }
  return report;
}

void StoreMaintenance::Start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Loop(); });
}

void StoreMaintenance::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StoreMaintenance::Wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void StoreMaintenance::Loop() {
  std::unique_lock lock(mu_);
  absl::Time next_pass = clock_->Now() + options_.interval;
  while (true) {
    // While the store refuses writes or holds any, its held writes are retried every
    // unwritable_interval; otherwise the loop sleeps to the next pass, or until Wake.
    const bool holding = !jobs_->Writable() || jobs_->PendingWrites() > 0;
    const absl::Time until =
        holding ? std::min(next_pass, clock_->Now() + options_.unwritable_interval) : next_pass;
    if (clock_->WaitUntil(cv_, lock, until, [&] { return stopping_ || woken_; }) && stopping_) {
      return;
    }
    woken_ = false;
    lock.unlock();
    if (clock_->Now() >= next_pass) {
      RunOnce();
      next_pass = clock_->Now() + options_.interval;
    } else if (!jobs_->Writable() || jobs_->PendingWrites() > 0) {
      WriteHeldWrites();
    }
    lock.lock();
  }
}

}  // namespace kbench::scheduler
