// Keeps the data directory from growing forever and the store writable: on a timer (the
// injected Clock), writes the artifacts and terminal states the store refused earlier (held on
// this host), then applies the artifact
// retention (bytes and age, not only at import), and prunes jobs older than --job-retention
// with their artifacts.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/scheduler/clock.h"
#include "server/store/artifact_store.h"
#include "server/store/resilient_job_store.h"

namespace kbench::scheduler {

struct MaintenanceOptions {
  // Time between passes.
  absl::Duration interval = absl::Minutes(10);
  // Jobs that finished longer ago than this are deleted with their artifacts (0: kept forever).
  absl::Duration job_retention = absl::Hours(24 * 90);
  // How soon held writes are retried while the store refuses writes (or holds any).
  absl::Duration unwritable_interval = absl::Seconds(2);
};

// "90d", "12h", "30m", "3600s" or "0" (kept forever). INVALID_ARGUMENT naming the value.
absl::StatusOr<absl::Duration> ParseRetention(const std::string& text);

// What one pass did, for the log and tests.
struct MaintenanceReport {
  int64_t pruned_jobs = 0;
  int64_t freed_artifact_bytes = 0;
  bool store_writable = true;
};

// Thread-safe. Borrows everything.
class StoreMaintenance {
 public:
  StoreMaintenance(MaintenanceOptions options, Clock* clock, store::ResilientJobStore* jobs,
                   store::ArtifactStore* artifacts);
  ~StoreMaintenance();

  // One pass now, on the caller's thread (at start, and in tests).
  MaintenanceReport RunOnce();
  // Passes every interval on a thread of its own, until Stop.
  void Start();
  void Stop();
  // The store started refusing writes: retry its held writes from now on, not at the next pass.
  void Wake();

 private:
  void Loop();
  // Held artifacts, then held terminal states; false while the store refuses them.
  bool WriteHeldWrites();

  const MaintenanceOptions options_;
  Clock* const clock_;
  store::ResilientJobStore* const jobs_;
  store::ArtifactStore* const artifacts_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace kbench::scheduler
