// kbench.v1 DeleteJob (issue 24, item 3): an owner or an admin removes a finished job, its
// artifacts and its history rows (kbctl jobs rm). Retention does the same to every job after
// --job-retention; this is for one job now, e.g. one whose output nobody should keep.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "server/api/kbench_service.h"
#include "server/api/request_limits.h"
#include "server/common/logging.h"

namespace kbench::api {
namespace {

using Clock = std::chrono::steady_clock;

absl::Status DecideDelete(const auth::Identity& caller, const std::string& job_id,
                          const std::string& owner) {
  if (caller.admin() || owner == caller.name) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat("delete job ", job_id, ": refused, it belongs to '", owner, "' and you are '",
                   caller.name, "'; only its owner or an admin deletes it"));
}

// The stored spec's owner; the row's own column for a spec that does not parse.
std::string OwnerOf(const store::JobRecord& job) {
  v1::JobSpec spec;
  return spec.ParseFromString(job.spec) && !spec.owner().empty() ? spec.owner() : job.owner;
}

}  // namespace

grpc::Status KbenchService::DeleteJob(grpc::ServerContext* context,
                                      const v1::DeleteJobRequest* request,
                                      v1::DeleteJobResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "DeleteJob");
  if (!caller.ok()) return Finish("DeleteJob", start, caller.status());
  absl::Status status = CheckJobId(request->job_id());
  absl::StatusOr<store::JobRecord> job;
  if (status.ok()) job = jobs_->Get(request->job_id());
  if (status.ok()) status = job.status();
  if (status.ok()) {
    status = DecideDelete(*caller, job->id, OwnerOf(*job));
    authorizer_->AuditOutcome(*caller, "DeleteJob", job->id, status);
  }
  absl::StatusOr<int32_t> removed;
  if (status.ok()) removed = artifacts_->DeleteFinishedJob(job->id);
  if (status.ok()) status = removed.status();
  if (status.ok()) {
    response->set_artifacts_removed(*removed);
    logging::LogJob(logging::Level::kInfo, job->id, "deleted",
                    {logging::Field("owner", OwnerOf(*job)), logging::Field("by", caller->name),
                     logging::Field("artifacts", *removed)});
  }
  return Finish("DeleteJob", start, status);
}

}  // namespace kbench::api
