// kbench.v1 DeleteSweep (issue 24): an owner or an admin removes a sweep that ended, with its
// points' jobs, their artifacts and history rows, and its report (kbctl sweep rm). A sweep's
// points cannot be deleted one by one (DeleteJob refuses them), so this is how they go before
// --job-retention; the owner's stored bytes drop with them.

#include "server/api/kbench_service.h"
#include "server/api/request_limits.h"
#include "server/api/status_mapping.h"
#include "server/common/logging.h"

namespace kbench::api {

grpc::Status KbenchService::DeleteSweep(grpc::ServerContext* context,
                                        const v1::DeleteSweepRequest* request,
                                        v1::DeleteSweepResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "DeleteSweep");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::Status status = sweeps_ == nullptr
                            ? absl::UnimplementedError("this kbenchd keeps no sweeps")
                            : CheckLength("sweep_id", request->sweep_id(), kMaxNameBytes);
  absl::StatusOr<store::SweepRecord> sweep;
  if (status.ok()) sweep = sweeps_->Get(request->sweep_id());
  if (status.ok()) status = sweep.status();
  if (status.ok()) {
    status = auth::Authorizer::DecideOwnVariant(*caller, "delete sweep", sweep->id, sweep->owner);
    authorizer_->AuditOutcome(*caller, "DeleteSweep", sweep->id, status);
  }
  absl::StatusOr<store::ArtifactStore::DeletedSweep> deleted;
  if (status.ok()) deleted = scheduler_->DeleteSweep(sweep->id);
  if (status.ok()) status = deleted.status();
  if (status.ok()) {
    response->set_jobs_removed(deleted->jobs);
    response->set_artifacts_removed(deleted->artifacts);
    logging::Log(logging::Level::kInfo, "sweep deleted",
                 {logging::Field("sweep", sweep->id), logging::Field("owner", sweep->owner),
                  logging::Field("by", caller->name), logging::Field("jobs", deleted->jobs),
                  logging::Field("artifacts", deleted->artifacts)});
  }
  return ToGrpcStatus(status);
}

}  // namespace kbench::api
