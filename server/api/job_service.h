// kbench.v1's jobs (issue 27: one small service per domain): SubmitJob, GetJob, ListJobs,
// CancelJob and DeleteJob, a job's artifact opened for GetArtifact, and the re-run that confirms
// a ranked job. A submit is validated, its devices and registered variants resolved, admitted
// by its owner's quotas (usage_service.h), then created through the queue, whose lifecycle is
// the one writer of a job's state (server/scheduler/job_lifecycle.h). Nothing here knows gRPC:
// each call is handed who calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kbench/v1/service.pb.h"
#include "server/api/submit_validation.h"
#include "server/api/usage_service.h"
#include "server/api/variant_service.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace kbench::api {

// An artifact as GetArtifact streams it: its description and its bytes.
using OpenedArtifact = std::pair<v1::ArtifactInfo, std::unique_ptr<store::ArtifactReader>>;

class JobService {
 public:
  // What it serves from; each must outlive it.
  struct Parts {
    store::JobStore* jobs = nullptr;
    store::ArtifactStore* artifacts = nullptr;
    scheduler::JobQueue* queue = nullptr;
    scheduler::JobEvents* events = nullptr;
    const auth::Authorizer* authorizer = nullptr;
    UsageService* usage = nullptr;
    VariantService* variants = nullptr;
  };
  struct Bounds {
    SubmitLimits limits;
    // A ListJobs page ends early rather than pass this.
    int64_t max_list_response_bytes = 0;
    // The transport's bound on a reply (GetJob with its code).
    int64_t max_reply_bytes = 0;
  };
  JobService(const Parts& parts, const Bounds& bounds);

  // The caller decides the owner (Authorizer::Submit); confirms_job is kbenchd's own.
  absl::Status Submit(const auth::Identity& caller, const v1::SubmitJobRequest& request,
                      v1::SubmitJobResponse* response);
  absl::Status Get(const auth::Identity& caller, const v1::GetJobRequest& request,
                   v1::GetJobResponse* response);
  absl::Status List(const auth::Identity& caller, const v1::ListJobsRequest& request,
                    v1::ListJobsResponse* response);
  absl::Status Cancel(const auth::Identity& caller, const v1::CancelJobRequest& request,
                      v1::CancelJobResponse* response);
  // An owner or an admin removes a finished job, its artifacts and history rows (job_deletion.cc).
  absl::Status Delete(const auth::Identity& caller, const v1::DeleteJobRequest& request,
                      v1::DeleteJobResponse* response);

  // Validates, admits and queues `request`, whose owner is already decided (a point of a sweep,
  // a confirming re-run, or Submit's).
  absl::Status Queue(const auth::Identity& caller, const v1::SubmitJobRequest& request,
                     v1::SubmitJobResponse* response);
  // The job as the API shows it. `keep_code`: the user kernels' code stays in it.
  absl::StatusOr<v1::Job> Load(const std::string& id, bool keep_code = false);
  // The device a job runs on; for a multi-GPU job (devices or gpus asked) its gang, written into
  // the spec (`devices`, lead first; `device` the lead), and the lead returned.
  absl::StatusOr<v1::DeviceInfo> ResolveDevices(v1::JobSpec* spec);
  // A job's artifact, after checking that the job and artifact exist and that the caller may
  // read it (a user's code is its owner's).
  absl::StatusOr<OpenedArtifact> OpenArtifact(const auth::Identity& caller,
                                              const v1::GetArtifactRequest& request);
  // Issue 23: submits the re-run that confirms ranked job `job_id` (JobSpec.confirms_job), for
  // the same owner, on any ready device of the same kind (another one where the host or fleet
  // has one free), once: the idempotency key is the job's. Only when every variant's result
  // counts (converged, not drifted); a failure to submit is logged, never the job's.
  void ConfirmRankedRun(const std::string& job_id, const v1::JobSpec& spec,
                        const v1::JobResult& result);

 private:
  // An earlier job with the same idempotency key, if it asked for the same spec.
  absl::Status Deduplicate(const std::string& key, const store::JobRecord& earlier,
                           const v1::JobSpec& spec, v1::SubmitJobResponse* response);

  store::JobStore* const jobs_;
  store::ArtifactStore* const artifacts_;
  scheduler::JobQueue* const queue_;
  scheduler::JobEvents* const events_;
  const auth::Authorizer* const authorizer_;
  UsageService* const usage_;
  VariantService* const variants_;
  const Bounds bounds_;
};

}  // namespace kbench::api
