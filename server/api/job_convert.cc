// Store records -> API messages.
#include "server/api/job_convert.h"

#include "absl/status/status.h"
#include "google/protobuf/util/time_util.h"
#include "server/api/artifact_access.h"
#include "server/common/job_error.h"

namespace kbench::api {

using google::protobuf::util::TimeUtil;

v1::JobState StateToProto(store::JobState state) {
  switch (state) {
    case store::JobState::kQueued:
      return v1::JOB_STATE_QUEUED;
    case store::JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case store::JobState::kSucceeded:
      return v1::JOB_STATE_SUCCEEDED;
    case store::JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case store::JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

std::optional<store::JobState> StateFromProto(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_QUEUED:
      return store::JobState::kQueued;
    case v1::JOB_STATE_RUNNING:
      return store::JobState::kRunning;
    case v1::JOB_STATE_SUCCEEDED:
      return store::JobState::kSucceeded;
    case v1::JOB_STATE_FAILED:
      return store::JobState::kFailed;
    case v1::JOB_STATE_CANCELLED:
      return store::JobState::kCancelled;
    default:
      return std::nullopt;
  }
}

v1::Job RecordToJob(const store::JobRecord& record, const std::optional<v1::Progress>& progress,
                    const std::vector<store::ArtifactRecord>& artifacts, bool keep_code) {
  v1::Job job;
  job.set_id(record.id);
  job.mutable_spec()->ParseFromString(record.spec);
  // A user kernel's code (up to 32 MiB) is not echoed in every Get/List/Watch reply: its sha256
  // is in the result (user_module, compile), and the submitter has the file.
  if (!keep_code) {
    for (v1::UserKernel& uk : *job.mutable_spec()->mutable_user_kernels()) uk.clear_code();
  }
  job.set_state(StateToProto(record.state));
  // In a fleet, the node that claimed it names the device ("gpu-b/cuda:0").
  job.set_device(record.node.empty() ? record.device : record.node + "/" + record.device);
  if (record.create_time_ns > 0)
    *job.mutable_create_time() = TimeUtil::NanosecondsToTimestamp(record.create_time_ns);
  if (record.start_time_ns > 0)
    *job.mutable_start_time() = TimeUtil::NanosecondsToTimestamp(record.start_time_ns);
  if (record.finish_time_ns > 0)
    *job.mutable_finish_time() = TimeUtil::NanosecondsToTimestamp(record.finish_time_ns);
  // A record from before errors were bounded at their end may hold megabytes.
  job.set_error(BoundedJobError(record.error, ""));
  // v1::StatusCode numbers the codes as absl::StatusCode does. The name stays for older clients.
  job.set_error_status(static_cast<v1::StatusCode>(record.code));
  if (record.code != absl::StatusCode::kOk) {
    job.set_error_code(absl::StatusCodeToString(record.code));
  }
  job.set_attempts(record.attempts);
  job.set_idempotency_key(record.idempotency_key);
  if (progress) *job.mutable_progress() = *progress;
  if (!record.result.empty()) job.mutable_result()->ParseFromString(record.result);
  for (const store::ArtifactRecord& a : artifacts) {
    v1::ArtifactInfo* info = job.add_artifacts();
    info->set_name(a.name);
    info->set_size_bytes(a.size_bytes);
    info->set_sha256(a.sha256);
    info->set_content_type(a.content_type);
  }
  MarkOwnerOnlyArtifacts(&job);

  return job;
}

void SummarizeJob(v1::Job* job) {
  if (!job->has_result()) return;
  v1::JobResult* result = job->mutable_result();
  result->clear_environment();
  // The raw samples (up to 10000 a variant) are for GetJob and `kbctl diff`.
  for (v1::VariantResult& v : *result->mutable_variants()) v.clear_sample_seconds();
  if (result->has_profile()) {
    result->mutable_profile()->clear_kernels();
    result->mutable_profile()->clear_ncu();
  }
}

}  // namespace kbench::api
