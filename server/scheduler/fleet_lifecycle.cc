// A fleet's job transitions (claim, lease renewal, reap, cancel while unclaimed), owned by
// JobLifecycle like a host's: timed by its clock, retried by FairSharePolicy, watchers told here.
#include "common/status_macros.h"
#include "server/common/logging.h"
#include "server/scheduler/job_lifecycle.h"

namespace kbench::scheduler {
namespace {

using logging::Field;
using logging::Level;

}  // namespace

absl::StatusOr<std::optional<store::JobRecord>> JobLifecycle::Claim(
    store::FleetStore& fleet, const std::string& node, const store::ClaimableDevice& device,
    absl::Duration lease, absl::Duration half_life) {
  const absl::Time now = clock_->Now();
  KBENCH_ASSIGN_OR_RETURN(
      std::optional<store::JobRecord> claimed,
      fleet.Claim(node, device, absl::ToUnixNanos(now), absl::ToUnixNanos(now + lease), half_life));
  if (claimed) {
    logging::LogJob(Level::kInfo, claimed->id, "claimed",
                    {Field("node", node), Field("device", device.device),
                     Field("target", claimed->target), Field("owner", claimed->owner)});
  }
  return claimed;
}

absl::Status JobLifecycle::Heartbeat(store::FleetStore& fleet, const std::string& node,
                                     const std::string& devices, absl::Duration lease) {
  const absl::Time now = clock_->Now();
  return fleet.Heartbeat(node, absl::ToUnixNanos(now), devices, absl::ToUnixNanos(now + lease));
}

absl::StatusOr<std::vector<store::ReapedJob>> JobLifecycle::ReapExpired(store::FleetStore& fleet,
                                                                        int32_t max_attempts) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ReapedJob> reaped,
                          fleet.ReapExpired(NowNs(), max_attempts));
  PublishReaped(reaped);
  return reaped;
}

absl::StatusOr<std::vector<store::ReapedJob>> JobLifecycle::ReleaseNode(store::FleetStore& fleet,
                                                                        const std::string& node,
                                                                        int32_t max_attempts) {
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ReapedJob> released,
                          fleet.ReleaseNode(node, NowNs(), max_attempts));
  PublishReaped(released);
  return released;
}

absl::StatusOr<bool> JobLifecycle::CancelUnclaimed(store::FleetStore& fleet,
                                                   const std::string& id) {
  KBENCH_ASSIGN_OR_RETURN(bool cancelled,
                          fleet.CancelUnclaimed(id, NowNs(), "cancelled while queued"));
  if (cancelled) {
    events_->Publish(id);
    events_->Finished(id);
  }
  return cancelled;
}

void JobLifecycle::PublishReaped(const std::vector<store::ReapedJob>& reaped) {
  for (const store::ReapedJob& r : reaped) {
    logging::LogJob(Level::kWarn, r.job.id,
                    r.failed ? "failed: its node was lost while it ran, too many times"
                             : "re-queued: its node was lost",
                    {Field("node", r.job.node), Field("state", store::JobStateName(r.job.state)),
                     Field("attempts", r.job.attempts), Field("owner", r.job.owner)});
    events_->Publish(r.job.id);
    if (r.failed) events_->Finished(r.job.id);
  }
}

}  // namespace kbench::scheduler
