// Each owner's GPU time, as fair share and quotas need it: decayed with a half-life (Slurm's
// multifactor fair share with one level and equal shares: the owner with the least decayed
// recent usage goes first), today's since 00:00 UTC (the daily quota), and the total.
// GPU time is the wall time a device spent on the owner's jobs. Not thread-safe:
// RunAccounts guards it (run_accounts.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "server/common/fair_share_policy.h"

namespace kbench::scheduler {

struct OwnerUsageTotals {
  double decayed_gpu_seconds = 0;
  double today_gpu_seconds = 0;
  double total_gpu_seconds = 0;
};

class UsageLedger {
 public:
  // A half-life of zero or less means no memory: only today's and the total are kept.
  explicit UsageLedger(absl::Duration half_life) : policy_(half_life) {}

  // `seconds` of GPU time used by `owner`, ending at `at`. Charges may come out of order
  // (several devices, or a replay from the store): each is decayed from its own time.
  void Charge(const std::string& owner, double seconds, absl::Time at);

  // Usage decayed to `now`: sum of charges * 2^-((now - at) / half_life).
  double Decayed(const std::string& owner, absl::Time now) const;
  // GPU seconds charged since 00:00 UTC of `now`'s day.
  double Today(const std::string& owner, absl::Time now) const;
  OwnerUsageTotals Totals(const std::string& owner, absl::Time now) const;
  // Every owner ever charged, in name order.
  std::vector<std::string> Owners() const;

  absl::Duration half_life() const { return policy_.half_life(); }

 private:
  struct Account {
    double decayed = 0;  // as of `as_of`
    absl::Time as_of = absl::InfinitePast();
    int64_t day = 0;  // days since the Unix epoch (UTC) that day_seconds counts
    double day_seconds = 0;
    double total = 0;
  };
  double DecayFactor(absl::Duration elapsed) const { return policy_.DecayFactor(elapsed); }

  FairSharePolicy policy_;
  std::map<std::string, Account> accounts_;
};

// 00:00 UTC of the day after `t`: when a daily quota frees up.
absl::Time NextUtcMidnight(absl::Time t);

}  // namespace kbench::scheduler
