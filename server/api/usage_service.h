// kbench.v1's usage domain (issue 27: one small service per domain): fair share and quotas.
// GetUsage shows each owner's standing; the admission checks (an owner's unfinished jobs, GPU
// time today and stored bytes; the daemon's whole queue) are what a submit, a sweep and a
// variant's registration pass before anything is stored; a queued job's place in its device's
// line. Nothing here knows gRPC: callers hand it who calls.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "kbench/v1/service.pb.h"
#include "server/api/quotas.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/scheduler/job_queue.h"
#include "server/store/stored_bytes.h"

namespace kbench::api {

class UsageService {
 public:
  // Each must outlive it. `authorizer` gives each owner's limits from the auth file.
  UsageService(scheduler::JobQueue* queue, store::StoredBytes* stored,
               const auth::Authorizer* authorizer, const QuotaDefaults& quotas)
      : queue_(queue), stored_(stored), authorizer_(authorizer), quotas_(quotas) {}

  absl::Status Get(const auth::Identity& caller, const v1::GetUsageRequest& request,
                   v1::GetUsageResponse* response);

  // Held from a submit's quota check to its Enqueue, so that two submits cannot both take the
  // last slot.
  std::unique_lock<std::mutex> HoldAdmission() { return std::unique_lock(admission_mu_); }
  // RESOURCE_EXHAUSTED when a new job `spec` would pass one of its owner's limits (audited).
  // Call under HoldAdmission, up to the job's Enqueue.
  absl::Status CheckOwnerQuota(const auth::Identity& caller, const v1::JobSpec& spec);
  // RESOURCE_EXHAUSTED when storing `adding` more bytes for `owner` would pass their bound on
  // stored bytes (audited as `action`). Submits call it under HoldAdmission, registrations
  // under their own lock, so that two on one node cannot both take the last bytes. `adding`:
  // the request's bytes as submitted. With `specs` (the jobs it queues), a kernel's code that
  // the store keeps once counts once, and not at all when the owner keeps it already.
  absl::Status CheckStoredBytesQuota(const auth::Identity& caller, absl::string_view action,
                                     const std::string& owner, int64_t adding,
                                     const std::vector<const v1::JobSpec*>& specs = {});

  // Sets a queued job's queue_place from `places` (Scheduler::QueuePlaces).
  static void SetQueuePlace(const std::map<std::string, scheduler::QueuePlaceEstimate>& places,
                            v1::Job* job);

 private:
  OwnerQuota QuotaOf(const std::string& owner) const;

  scheduler::JobQueue* const queue_;
  store::StoredBytes* const stored_;
  const auth::Authorizer* const authorizer_;
  const QuotaDefaults quotas_;
  std::mutex admission_mu_;
};

}  // namespace kbench::api
