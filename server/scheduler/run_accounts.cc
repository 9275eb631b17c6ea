// The ledger and the run history under one lock of their own (see run_accounts.h).
#include "server/scheduler/run_accounts.h"

namespace kbench::scheduler {

void RunAccounts::Charge(const std::string& owner, double gpu_seconds, absl::Time at,
                         const std::string& similar_key, double seconds, bool succeeded) {
  std::lock_guard lock(mu_);
  ledger_.Charge(owner, gpu_seconds, at);
  if (succeeded) history_.Add(similar_key, seconds);
}

double RunAccounts::Decayed(const std::string& owner, absl::Time now) const {
  std::lock_guard lock(mu_);
  return ledger_.Decayed(owner, now);
}

OwnerUsageTotals RunAccounts::Totals(const std::string& owner, absl::Time now) const {
  std::lock_guard lock(mu_);
  return ledger_.Totals(owner, now);
}

std::vector<std::string> RunAccounts::Owners() const {
  std::lock_guard lock(mu_);
  return ledger_.Owners();
}

std::optional<double> RunAccounts::Expected(const std::string& similar_key) const {
  std::lock_guard lock(mu_);
  return history_.Expected(similar_key);
}

}  // namespace kbench::scheduler
