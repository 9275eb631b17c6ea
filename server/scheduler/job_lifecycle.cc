// Job state transitions: store, metrics and watchers in one order.
#include "server/scheduler/job_lifecycle.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/common/fair_share_policy.h"
#include "server/common/job_error.h"
#include "server/common/logging.h"
#include "server/scheduler/result_indexing.h"
#include "server/store/resilient_job_store.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

std::string OwnerOf(const store::JobRecord& job) { return job.owner; }

JobEnd JobEnd::Succeeded(std::string result) {
  return {store::JobState::kSucceeded, absl::StatusCode::kOk, "", std::move(result)};
}

JobEnd JobEnd::Cancelled(std::string message, std::string result) {
  return {store::JobState::kCancelled, absl::StatusCode::kCancelled, std::move(message),
          std::move(result)};
}

JobEnd JobEnd::Failed(absl::StatusCode code, std::string message, std::string result) {
  return {store::JobState::kFailed, code, std::move(message), std::move(result)};
}

absl::StatusOr<std::pair<store::JobRecord, bool>> JobLifecycle::Create(store::JobRecord record) {
  record.state = store::JobState::kQueued;
  record.create_time_ns = NowNs();
  KBENCH_ASSIGN_OR_RETURN(auto inserted, jobs_->Insert(std::move(record)));
  if (inserted.second) {
    metrics_->JobSubmitted(inserted.first.kind, inserted.first.device);
    metrics_->OwnerJobSubmitted(inserted.first.owner);
    events_->Publish(inserted.first.id);
  }
  return inserted;
}

absl::StatusOr<store::JobRecord> JobLifecycle::Start(const std::string& id) {
  const int64_t now = NowNs();
  KBENCH_RETURN_IF_ERROR(jobs_->MarkRunning(id, now));
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord job, jobs_->Get(id));
  metrics_->ObserveQueueWait(job.device, static_cast<double>(now - job.create_time_ns) / 1e9);
  events_->Started(id);
  logging::LogJob(
      Level::kInfo, id, "started",
      {Field("owner", OwnerOf(job)), Field("device", job.device), Field("attempt", job.attempts)});
  return job;
}

void JobLifecycle::Finish(const store::JobRecord& job, const JobEnd& end,
                          std::optional<absl::Duration> ran, const v1::JobSpec* spec) {
  // A store that cannot be read now (its database away) does not stop the end: the store's
  // conditional finish refuses a second one, and a refused write is held (ResilientJobStore).
  if (absl::StatusOr<store::JobRecord> now = jobs_->Get(job.id);
      now.ok() ? store::IsTerminal(now->state) : !store::IsStoreWriteFailure(now.status())) {
    return;
  }
  const std::string state = store::JobStateName(end.state);
  metrics_->JobFinished(job.kind, job.device, state);
  if (ran) metrics_->ObserveRunDuration(job.kind, job.device, absl::ToDoubleSeconds(*ran));
  const int64_t finish_time_ns = NowNs();
  // Messages of the executor's runs were bounded with their whole kept (long_errors.h); any
  // other is bounded here, so no record's error can grow past what a reply may carry.
  const std::string message = BoundedJobError(end.message, "");
  if (absl::Status s =
          jobs_->Finish(job.id, end.state, end.code, message, end.result, finish_time_ns);
      !s.ok()) {
    logging::LogJob(
        Level::kError, job.id, "cannot be finished",
        {Field("owner", OwnerOf(job)), Field("state", state), Field("error", s.ToString())});
    return;
  }
  if (end.state == store::JobState::kSucceeded) IndexResults(job, end, spec, finish_time_ns);
  events_->Finished(job.id);
  logging::LogJob(
      Level::kInfo, job.id, state,
      {Field("owner", OwnerOf(job)), Field("device", job.device), Field("error", message),
       Field("code", end.code == absl::StatusCode::kOk ? "" : absl::StatusCodeToString(end.code))});
}

void JobLifecycle::IndexResults(const store::JobRecord& job, const JobEnd& end,
                                const v1::JobSpec* spec, int64_t finish_time_ns) {
  // The messages the run already holds are indexed as they are; only a caller without them
  // (a job finished from its record) has the bytes parsed.
  v1::JobSpec parsed_spec;
  v1::JobResult parsed_result;
  if ((spec == nullptr && !parsed_spec.ParseFromString(job.spec)) ||
      (end.result_message == nullptr && !parsed_result.ParseFromString(end.result))) {
    logging::LogJob(Level::kError, job.id, "result not indexed: spec or result does not parse");
    return;
  }
  const v1::JobSpec& s_spec = spec != nullptr ? *spec : parsed_spec;
  const v1::JobResult& s_result =
      end.result_message != nullptr ? *end.result_message : parsed_result;
  // After the job's own row: a failure here loses a history entry, never the result.
  if (absl::Status s = jobs_->IndexResults(IndexedResultsOf(job, s_spec, s_result, finish_time_ns));
      !s.ok()) {
    logging::LogJob(Level::kError, job.id, "result not indexed", {Field("error", s.ToString())});
  }
}

absl::Status JobLifecycle::Requeue(const std::string& id, const std::string& why) {
  absl::StatusOr<store::JobRecord> job = jobs_->Get(id);
  const std::string owner = job.ok() ? OwnerOf(*job) : "";
  if (absl::Status s = jobs_->Requeue(id); !s.ok()) {
    logging::LogJob(Level::kError, id, "cannot be re-queued",
                    {Field("owner", owner), Field("error", s.ToString())});
    return s;
  }
  events_->Publish(id);
  logging::LogJob(Level::kInfo, id, absl::StrCat(why, "; re-queued"), {Field("owner", owner)});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<store::JobRecord>> JobLifecycle::Recover() {
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::JobRecord> running,
                          jobs_->ListByState(store::JobState::kRunning));
  for (const store::JobRecord& r : running) {
    if (!FairSharePolicy::MayRetry(r.attempts)) {
      Finish(r, JobEnd::Failed(
                    absl::StatusCode::kAborted,
                    absl::StrCat("the daemon stopped while this job was running, ", r.attempts,
                                 " times; not retried again (a job that crashes "
                                 "kbenchd would do it forever)")));
      continue;
    }
    KBENCH_RETURN_IF_ERROR(jobs_->Requeue(r.id));
    logging::LogJob(Level::kInfo, r.id, "re-queued: the daemon stopped while it was running",
                    {Field("owner", OwnerOf(r))});
  }
  return jobs_->ListByState(store::JobState::kQueued);
}

absl::StatusOr<int32_t> JobLifecycle::DeleteFinished(store::ArtifactStore& artifacts,
                                                     const std::string& id) {
  return artifacts.DeleteFinishedJob(id);
}

absl::StatusOr<store::ArtifactStore::DeletedSweep> JobLifecycle::DeleteSweep(
    store::ArtifactStore& artifacts, const std::string& sweep_id) {
  return artifacts.DeleteSweep(sweep_id);
}

}  // namespace kbench::scheduler
