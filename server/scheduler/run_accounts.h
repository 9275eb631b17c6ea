// What runs used and took, shared by every device's worker (issue 27, item 5: the scheduler's
// one mutex split): each owner's GPU time (usage_ledger.h: fair share, daily quotas) and each
// kind of job's past durations (run_history.h: queue estimates), under their own lock. A run's
// charge no longer waits for the queues' lock, nor a queue read for a charge. Lock order: the
// scheduler's lock may be held when this one is taken, never the reverse (nothing here calls
// out). Thread-safe.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "server/scheduler/run_history.h"
#include "server/scheduler/usage_ledger.h"

namespace kbench::scheduler {

class RunAccounts {
 public:
  explicit RunAccounts(absl::Duration half_life) : ledger_(half_life) {}

  // A run of `owner` that held devices for `gpu_seconds` in all, ending at `at`; a successful
  // one's wall time (`seconds`) also predicts the next run of `similar_key`.
  void Charge(const std::string& owner, double gpu_seconds, absl::Time at,
              const std::string& similar_key, double seconds, bool succeeded);

  // UsageLedger's readings, each under the lock.
  double Decayed(const std::string& owner, absl::Time now) const;
  OwnerUsageTotals Totals(const std::string& owner, absl::Time now) const;
  std::vector<std::string> Owners() const;
  // RunHistory's: the mean of the last successful runs of `similar_key`, if any.
  std::optional<double> Expected(const std::string& similar_key) const;

 private:
  mutable std::mutex mu_;
  UsageLedger ledger_ ABSL_GUARDED_BY(mu_);
  RunHistory history_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::scheduler
