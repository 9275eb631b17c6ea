// What an operator tunes of the scheduler (kbenchd's flags), read by the scheduler and by each
// device's worker.
#pragma once

#include <string>

#include "absl/time/time.h"

namespace kbench::scheduler {

struct SchedulerOptions {
  // Start executors for the CUDA devices the launcher discovers.
  bool enable_cuda = true;
  // How long a cancelled running job may take to stop before its executor is killed.
  absl::Duration cancel_grace = absl::Seconds(5);
  // Re-queue the store's interrupted jobs and queue its queued ones at Start (a single host).
  // A fleet's node leaves that to the fleet: the store's queue is every node's.
  bool recover_jobs = true;
  // Slack added to a job's own timeout before its executor counts as hung.
  absl::Duration hang_slack = absl::Seconds(300);
  // Consecutive failed starts after which a device counts as unusable (FAILED): its queued
  // jobs fail and new ones are refused, while starts go on being retried.
  int max_start_failures = 5;
  // Back-off between failed starts: initial, doubling, capped.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(30);
  // How often a worker looks at its running job's deadlines (a cancel arms a new one).
  absl::Duration supervision_tick = absl::Milliseconds(250);
  // Fair share forgets GPU time with this half-life (--fair-share-half-life).
  absl::Duration fair_share_half_life = absl::Hours(1);
  // --isolate-owners (issue 23, item 4): a CUDA device's executor is restarted before a job of
  // another owner than the last job's, so no CUDA context, allocation or loaded module is ever
  // shared between owners (each job already unloads its modules and scrubs its memory).
  bool isolate_owners = false;
  // What ListNodes says of a single host (a fleet's nodes say it with their heartbeats):
  // kbenchd's version and when it started (the caller knows the address it dialled).
  std::string version;
  absl::Time start_time = absl::InfinitePast();
};

}  // namespace kbench::scheduler
