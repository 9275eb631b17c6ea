// kbench.v1 DeleteJob (issue 24, item 3): an owner or an admin removes a finished job, its
// artifacts and its history rows (kbctl jobs rm). Retention does the same to every job after
// --job-retention; this is for one job now, e.g. one whose output nobody should keep.

#include "common/status_macros.h"
#include "server/api/job_service.h"
#include "server/api/request_limits.h"
#include "server/common/logging.h"
#include "server/scheduler/job_lifecycle.h"

namespace kbench::api {

absl::Status JobService::Delete(const auth::Identity& caller, const v1::DeleteJobRequest& request,
                                v1::DeleteJobResponse* response) {
  KBENCH_RETURN_IF_ERROR(CheckJobId(request.job_id()));
  KBENCH_ASSIGN_OR_RETURN(const store::JobRecord job, jobs_->Get(request.job_id()));
  const absl::Status decision =
      auth::Authorizer::DecideOwnVariant(caller, "delete job", job.id, scheduler::OwnerOf(job));
  authorizer_->AuditOutcome(caller, "DeleteJob", job.id, decision);
  KBENCH_RETURN_IF_ERROR(decision);
  KBENCH_ASSIGN_OR_RETURN(const int32_t removed, queue_->DeleteFinished(job.id));
  response->set_artifacts_removed(removed);
  logging::LogJob(logging::Level::kInfo, job.id, "deleted",
                  {logging::Field("owner", scheduler::OwnerOf(job)),
                   logging::Field("by", caller.name), logging::Field("artifacts", removed)});
  return absl::OkStatus();
}

}  // namespace kbench::api
