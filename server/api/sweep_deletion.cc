// kbench.v1 DeleteSweep (issue 24): an owner or an admin removes a sweep that ended, with its
// points' jobs, their artifacts and history rows, and its report (kbctl sweep rm). A sweep's
// points cannot be deleted one by one (DeleteJob refuses them), so this is how they go before
// --job-retention; the owner's stored bytes drop with them.

#include "common/status_macros.h"
#include "server/api/request_limits.h"
#include "server/api/sweep_service.h"
#include "server/common/logging.h"

namespace kbench::api {

absl::Status SweepService::Delete(const auth::Identity& caller,
                                  const v1::DeleteSweepRequest& request,
                                  v1::DeleteSweepResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_RETURN_IF_ERROR(CheckLength("sweep_id", request.sweep_id(), kMaxNameBytes));
  KBENCH_ASSIGN_OR_RETURN(const store::SweepRecord sweep, sweeps_->Get(request.sweep_id()));
  const absl::Status decision =
      auth::Authorizer::DecideOwnVariant(caller, "delete sweep", sweep.id, sweep.owner);
  auth::Authorizer::AuditOutcome(caller, "DeleteSweep", sweep.id, decision);
  KBENCH_RETURN_IF_ERROR(decision);
  KBENCH_ASSIGN_OR_RETURN(const store::ArtifactStore::DeletedSweep deleted,
                          queue_->DeleteSweep(sweep.id));
  response->set_jobs_removed(deleted.jobs);
  response->set_artifacts_removed(deleted.artifacts);
  logging::Log(logging::Level::kInfo, "sweep deleted",
               {logging::Field("sweep", sweep.id), logging::Field("owner", sweep.owner),
                logging::Field("by", caller.name), logging::Field("jobs", deleted.jobs),
                logging::Field("artifacts", deleted.artifacts)});
  return absl::OkStatus();
}

}  // namespace kbench::api
