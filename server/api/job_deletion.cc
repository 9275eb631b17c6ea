// kbench.v1 DeleteJob (issue 24, item 3): an owner or an admin removes a finished job, its
// artifacts and its history rows (kbctl jobs rm). Retention does the same to every job after
// --job-retention; this is for one job now, e.g. one whose output nobody should keep.

#include "server/api/kbench_service.h"
#include "server/api/request_limits.h"
#include "server/api/status_mapping.h"
#include "server/common/logging.h"
#include "server/scheduler/job_lifecycle.h"

namespace kbench::api {

grpc::Status KbenchService::DeleteJob(grpc::ServerContext* context,
                                      const v1::DeleteJobRequest* request,
                                      v1::DeleteJobResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "DeleteJob");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::Status status = CheckJobId(request->job_id());
  absl::StatusOr<store::JobRecord> job;
  if (status.ok()) job = jobs_->Get(request->job_id());
  if (status.ok()) status = job.status();
  if (status.ok()) {
    status = auth::Authorizer::DecideOwnVariant(*caller, "delete job", job->id,
                                                scheduler::OwnerOf(*job));
    authorizer_->AuditOutcome(*caller, "DeleteJob", job->id, status);
  }
  absl::StatusOr<int32_t> removed;
  if (status.ok()) removed = scheduler_->DeleteFinished(job->id);
  if (status.ok()) status = removed.status();
  if (status.ok()) {
    response->set_artifacts_removed(*removed);
    logging::LogJob(logging::Level::kInfo, job->id, "deleted",
                    {logging::Field("owner", scheduler::OwnerOf(*job)),
                     logging::Field("by", caller->name), logging::Field("artifacts", *removed)});
  }
  return ToGrpcStatus(status);
}

}  // namespace kbench::api
