// The one fair-share and retry policy (issue 27, item 1): which job of a device's candidates
// runs next, how an owner's GPU time is forgotten, and how often a job may be started before a
// crash under it counts as the job's fault. A host's device queue (scheduler/device_queue.cc)
// compares candidates with Before; a fleet's claim (store/fleet_store.cc) must pick among rows
// under FOR UPDATE SKIP LOCKED in one statement, so it orders them with the SQL terms this class
// writes from the same rule (tests/server/scheduler/fair_share_policy_test.cc checks both agree).
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace kbench {

// A candidate as the policy ranks it: its own priority and age, and its owner's usage now.
struct FairShareRank {
  int32_t priority = 0;
  double owner_usage_seconds = 0;  // decayed GPU seconds, runs in progress included
  int64_t seq = 0;                 // submission order (smaller: older)
};

// Thread-safe (immutable).
class FairSharePolicy {
 public:
  // Times a job may be started before a daemon crash or a lost node under it counts as the
  // job's fault (it then ends FAILED): a job that crashes kbenchd would otherwise do so forever.
  static constexpr int32_t kMaxAttempts = 2;

  // A half-life of zero or less means no memory: every owner counts as unused.
  explicit FairSharePolicy(absl::Duration half_life) : half_life_(half_life) {}

  absl::Duration half_life() const { return half_life_; }

  // True when `a` runs before `b`: a priority above 0 (an admin's) first, highest first; then
  // the owner with the least usage; then the higher priority; then the older job.
  static bool Before(const FairShareRank& a, const FairShareRank& b);
  // The same order as SQL ORDER BY terms over a candidate's columns (expressions).
  static std::string SqlOrderBy(absl::string_view priority, absl::string_view usage,
                                absl::string_view seq);

  // The factor that ages usage by `elapsed` (1 for a negative elapsed: no growth).
  double DecayFactor(absl::Duration elapsed) const;
  // The same factor as a SQL expression of an age in nanoseconds and the half-life in
  // nanoseconds (a bound parameter; zero or less forgets at once).
  static std::string SqlDecayFactor(absl::string_view age_ns, absl::string_view half_life_ns);
  // The half-life in nanoseconds as SqlDecayFactor's parameter.
  double SqlHalfLifeNs() const;

  // Whether a job started `attempts` times and interrupted (not by its own fault) is started
  // again, rather than failed (`max_attempts`: an operator's or a test's other limit).
  static bool MayRetry(int32_t attempts, int32_t max_attempts = kMaxAttempts) {
    return attempts < max_attempts;
  }

 private:
  absl::Duration half_life_;
};

}  // namespace kbench
