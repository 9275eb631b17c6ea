// kbench.v1 fair share and quotas (see usage_service.h).
#include "server/api/usage_service.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/stopping_defaults.h"

namespace kbench::api {
namespace {

v1::QueuePlace QueuePlaceOf(const scheduler::QueuePlaceEstimate& e) {
  v1::QueuePlace place;
  place.set_device(e.device);
  place.set_position(e.position);
  place.set_jobs_ahead(e.position - 1);
  place.set_device_busy(e.device_busy);
  place.set_estimated_wait_seconds(e.wait_seconds);
  place.set_estimates_from_history(e.from_history);
  place.set_estimates_from_timeout(e.from_timeout);
  place.set_waiting_for(e.waiting_for);
  return place;
}

v1::OwnerLimits LimitsOf(const OwnerQuota& quota) {
  v1::OwnerLimits limits;
  limits.set_max_queued_jobs(quota.max_queued_jobs);
  limits.set_max_timeout_seconds(quota.max_timeout_seconds);
  limits.set_daily_gpu_seconds(quota.daily_gpu_seconds);
  return limits;
}

}  // namespace

void UsageService::SetQueuePlace(const std::map<std::string, scheduler::QueuePlaceEstimate>& places,
                                 v1::Job* job) {
  if (job->state() != v1::JOB_STATE_QUEUED) return;
  auto it = places.find(job->id());
  if (it != places.end()) *job->mutable_queue_place() = QueuePlaceOf(it->second);
}

OwnerQuota UsageService::QuotaOf(const std::string& owner) const {
  return QuotaFor(quotas_, authorizer_->LimitsOf(owner));
}

absl::Status UsageService::CheckOwnerQuota(const auth::Identity& caller, const v1::JobSpec& spec) {
  const std::string& owner = spec.owner();
  const OwnerQuota quota = QuotaOf(owner);
  const scheduler::UsageSnapshot usage = queue_->Usage(owner);
  QuotaUse use;
  use.now = usage.now;
  use.all_unfinished = usage.unfinished_jobs;
  for (const scheduler::OwnerStanding& o : usage.owners) {
    if (o.owner != owner) continue;
    use.owner_unfinished = o.queued + o.running;
    use.owner_today_gpu_seconds = o.usage.today_gpu_seconds;
  }
  const double timeout = spec.stopping().timeout_seconds() > 0 ? spec.stopping().timeout_seconds()
                                                               : kDefaultTimeoutSeconds;
  absl::Status status = CheckQuota(owner, quota, quotas_.max_queued_jobs_total, timeout, use);
  if (!status.ok()) auth::Authorizer::AuditDenied(caller, "SubmitJob over quota", owner, status);
  return status;
}

namespace {

// `adding` with each large kernel's code of `specs` counted once, and not at all when `owner`
// keeps it already (the store keeps it once: server/store/code_blobs.h).
absl::StatusOr<int64_t> LessKeptCode(store::StoredBytes& stored, const std::string& owner,
                                     const std::vector<const v1::JobSpec*>& specs, int64_t adding) {
  std::set<std::string> counted;
  for (const v1::JobSpec* spec : specs) {
    for (const v1::UserKernel& uk : spec->user_kernels()) {
      const auto bytes = static_cast<int64_t>(uk.code().size());
      if (bytes <= store::kCodeKeptOnceAboveBytes || uk.code_sha256().empty()) continue;
      adding -= bytes;
      if (!counted.insert(uk.code_sha256()).second) continue;
      KBENCH_ASSIGN_OR_RETURN(const bool kept, stored.Keeps(owner, uk.code_sha256()));
      if (!kept) adding += bytes;
    }
  }
  return adding;
}

}  // namespace

absl::Status UsageService::CheckStoredBytesQuota(const auth::Identity& caller,
                                                 absl::string_view action, const std::string& owner,
                                                 int64_t adding,
                                                 const std::vector<const v1::JobSpec*>& specs) {
  const OwnerQuota quota = QuotaOf(owner);
  if (quota.max_stored_bytes == 0) return absl::OkStatus();  // no bound: nothing to count
  KBENCH_ASSIGN_OR_RETURN(const store::OwnerStoredBytes kept, stored_->OwnedBy(owner));
  KBENCH_ASSIGN_OR_RETURN(adding, LessKeptCode(*stored_, owner, specs, adding));
  absl::Status status = CheckStoredBytes(owner, quota, kept, adding);
  if (!status.ok()) {
    auth::Authorizer::AuditDenied(caller, absl::StrCat(action, " over quota"), owner, status);
  }
  return status;
}

absl::Status UsageService::Get(const auth::Identity& /*caller*/, const v1::GetUsageRequest& request,
                               v1::GetUsageResponse* response) {
  if (!request.owner().empty()) {
    if (absl::Status s = auth::ValidateUserName(request.owner()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("owner: ", s.message()));
    }
  }
  const scheduler::UsageSnapshot usage = queue_->Usage(request.owner());
  double everyone = 0;
  for (const scheduler::OwnerStanding& o : usage.owners) everyone += o.usage.decayed_gpu_seconds;
  for (const scheduler::OwnerStanding& o : usage.owners) {
    if (!request.owner().empty() && o.owner != request.owner()) continue;
    v1::OwnerUsage* out = response->add_owners();
    out->set_owner(o.owner);
    out->set_decayed_gpu_seconds(o.usage.decayed_gpu_seconds);
    out->set_share(everyone > 0 ? o.usage.decayed_gpu_seconds / everyone : 0);
    out->set_today_gpu_seconds(o.usage.today_gpu_seconds);
    out->set_total_gpu_seconds(o.usage.total_gpu_seconds);
    out->set_queued_jobs(o.queued);
    out->set_running_jobs(o.running);
    *out->mutable_limits() = LimitsOf(QuotaOf(o.owner));
  }
  std::stable_sort(response->mutable_owners()->begin(), response->mutable_owners()->end(),
                   [](const v1::OwnerUsage& a, const v1::OwnerUsage& b) {
                     return a.decayed_gpu_seconds() < b.decayed_gpu_seconds();
                   });
  response->set_fair_share_half_life_seconds(absl::ToDoubleSeconds(queue_->FairShareHalfLife()));
  response->set_queued_jobs(usage.unfinished_jobs);
  response->set_max_queued_jobs(quotas_.max_queued_jobs_total);
  return absl::OkStatus();
}

}  // namespace kbench::api
