// Fair share between owners: usage replayed from the store, each run's GPU time charged to its
// owner, the next owner chosen by least decayed usage, and each queued job's place and
// estimated wait from playing its device's line forward.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/stopping_defaults.h"
#include "server/common/logging.h"
#include "server/scheduler/scheduler.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

constexpr double kMicrosecondsPerSecond = 1e6;

}  // namespace

absl::Status Scheduler::ReplayUsage() {
  if (usage_store_ == nullptr) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::UsageRecord> runs, usage_store_->All());
  for (const store::UsageRecord& r : runs) {
    const double seconds = static_cast<double>(r.gpu_microseconds) / kMicrosecondsPerSecond;
    accounts_.Charge(r.owner, seconds, absl::FromUnixNanos(r.end_time_ns), r.similar_key, seconds,
                     r.succeeded);
  }
  logging::Log(Level::kInfo, "usage replayed",
               {Field("runs", static_cast<int64_t>(runs.size())),
                Field("owners", static_cast<int64_t>(accounts_.Owners().size()))});
  return absl::OkStatus();
}

QueuedJob QueuedJobOf(const store::JobRecord& record) {
  QueuedJob job;
  job.id = record.id;
  job.priority = record.priority;
  job.seq = record.seq;
  job.enqueue_time_ns = record.create_time_ns;
  job.owner = record.owner;
  v1::JobSpec spec;
  // What predicts its duration is in the spec. An unreadable spec still queues: AdmitJob fails
  // it with the cause.
  if (spec.ParseFromString(record.spec)) {
    job.similar_key = SimilarJobKey(spec, record.device);
    // A fleet stores them node-qualified; the node that claimed the job holds them as its own.
    for (const std::string& d : spec.devices()) {
      if (spec.devices_size() > 1) job.devices.push_back(LocalDeviceId(d));
    }
    job.timeout_seconds = spec.stopping().timeout_seconds() > 0 ? spec.stopping().timeout_seconds()
                                                                : kDefaultTimeoutSeconds;
  }
  return job;
}

double Scheduler::OwnerUsageNow(const std::string& owner, absl::Time now) {
  double usage = accounts_.Decayed(owner, now);
  // A run in progress counts already: an owner busy on one GPU does not also win the next.
  for (const auto& [id, d] : devices_) {
    if (d->running && d->running->owner == owner) {
      usage += std::max(0.0, absl::ToDoubleSeconds(now - d->running->started));
    }
  }
  return usage;
}

double Scheduler::ExpectedSeconds(const QueuedJob& job, bool* from_history) {
  const std::optional<double> past = accounts_.Expected(job.similar_key);
  if (from_history != nullptr) *from_history = past.has_value();
  return past ? *past : job.timeout_seconds;
}

std::map<std::string, QueuePlaceEstimate> Scheduler::QueuePlaces() {
  std::lock_guard lock(mu_);
  const absl::Time now = clock_->Now();
  const ExpectedSecondsFn expected = [&](const QueuedJob& job) {
    return ExpectedSeconds(job, nullptr);
  };
  std::map<std::string, QueuePlaceEstimate> places;
  // Each device's running job's expected remaining seconds: a multi-GPU job waits for its other
  // devices too (their own queues do not run ahead of it: gang_line.h).
  std::map<std::string, double> remaining_of;
  for (const auto& [id, d] : devices_) {
    if (d->running) {
      remaining_of[id] = std::max(
          0.0, d->running->expected_seconds - absl::ToDoubleSeconds(now - d->running->started));
    }
  }
  for (const auto& [id, d] : devices_) {
    QueuePlaceEstimate next;
    next.device = id;
    next.device_busy = d->running.has_value();
    if (d->running) {
      const double elapsed = absl::ToDoubleSeconds(now - d->running->started);
      next.wait_seconds = std::max(0.0, d->running->expected_seconds - elapsed);
    }
    // The running job will have finished, its whole expected time charged, when the line moves.
    const double remaining = next.wait_seconds;
    const OwnerUsageFn usage = [&, remaining](const std::string& owner) {
      const bool runs_here = d->running && d->running->owner == owner;
      return OwnerUsageNow(owner, now) + (runs_here ? remaining : 0.0);
    };
    for (const QueuedJob& job : d->queue.Line(usage, expected)) {
      ++next.position;
      places[job.id] = next;
      for (size_t i = 1; i < job.devices.size(); ++i) {
        QueuePlaceEstimate& place = places[job.id];
        place.wait_seconds = std::max(place.wait_seconds, remaining_of[job.devices[i]]);
      }
      bool from_history = false;
      next.wait_seconds += ExpectedSeconds(job, &from_history);
      ++(from_history ? next.from_history : next.from_timeout);
    }
  }
  return places;
}

UsageSnapshot Scheduler::Usage(const std::string& owner) {
  std::lock_guard lock(mu_);
  UsageSnapshot snapshot;
  snapshot.now = clock_->Now();
  std::map<std::string, OwnerStanding> owners;
  for (const std::string& name : accounts_.Owners()) owners[name].owner = name;
  if (!owner.empty()) owners[owner].owner = owner;
  for (const auto& [id, d] : devices_) {
    for (const QueuedJob& job : d->queue.Jobs()) {
      owners[job.owner].owner = job.owner;
      ++owners[job.owner].queued;
    }
    if (d->running) {
      owners[d->running->owner].owner = d->running->owner;
      ++owners[d->running->owner].running;
    }
  }
  for (auto& [name, standing] : owners) {
    standing.usage = accounts_.Totals(name, snapshot.now);
    standing.usage.decayed_gpu_seconds = OwnerUsageNow(name, snapshot.now);
    snapshot.unfinished_jobs += standing.queued + standing.running;
    snapshot.owners.push_back(standing);
  }
  return snapshot;
}

void Scheduler::ChargeRun(const store::JobRecord& job, const v1::JobSpec& spec, absl::Duration ran,
                          bool succeeded) {
  const double seconds = std::max(0.0, absl::ToDoubleSeconds(ran));
  // A multi-GPU job held every device of its gang for the run: N x its wall time (issue 30).
  const double gpu_seconds = seconds * std::max(1, spec.devices_size());
  const absl::Time now = clock_->Now();
  store::UsageRecord record;
  record.job_id = job.id;
  record.attempt = job.attempts;
  record.owner = spec.owner();
  record.device = job.device;
  record.similar_key = SimilarJobKey(spec, job.device);
  record.succeeded = succeeded;
  record.gpu_microseconds = static_cast<int64_t>(gpu_seconds * kMicrosecondsPerSecond);
  record.end_time_ns = absl::ToUnixNanos(now);
  // Not under the queues' lock (run_accounts.h).
  accounts_.Charge(record.owner, gpu_seconds, now, record.similar_key, seconds, succeeded);
  if (on_usage_) on_usage_(record.owner, gpu_seconds);
  if (usage_store_ == nullptr) return;
  if (absl::Status s = usage_store_->Record(record); !s.ok()) {
    // The run's result matters more than its accounting: log, do not fail the job.
    logging::LogJob(Level::kError, record.job_id, "GPU time not recorded",
                    {Field("owner", record.owner), Field("error", s.ToString())});
  }
}

void Scheduler::DeviceIdle() {
  if (on_idle_) on_idle_();
}

void Scheduler::RankedSucceeded(const std::string& job_id, const v1::JobSpec& spec,
                                const v1::JobResult& result) {
  RankedObserver observer;
  {
    std::lock_guard lock(ranked_mu_);
    observer = on_ranked_;
  }
  if (observer) observer(job_id, spec, result);
}

}  // namespace kbench::scheduler
