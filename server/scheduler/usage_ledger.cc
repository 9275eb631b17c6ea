// Decayed, daily and total GPU time per owner.
#include "server/scheduler/usage_ledger.h"

namespace kbench::scheduler {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t UtcDay(absl::Time t) {
  const int64_t s = absl::ToUnixSeconds(t);
  return s >= 0 ? s / kSecondsPerDay : (s - kSecondsPerDay + 1) / kSecondsPerDay;
}

}  // namespace

absl::Time NextUtcMidnight(absl::Time t) {
  return absl::FromUnixSeconds((UtcDay(t) + 1) * kSecondsPerDay);
}

void UsageLedger::Charge(const std::string& owner, double seconds, absl::Time at) {
  if (!(seconds > 0)) return;  // also drops NaN
  Account& a = accounts_[owner];
  if (at >= a.as_of) {
    a.decayed = a.decayed * DecayFactor(at - a.as_of) + seconds;
    a.as_of = at;
  } else {
    a.decayed += seconds * DecayFactor(a.as_of - at);
  }
  const int64_t day = UtcDay(at);
  if (day > a.day) {
    a.day = day;
    a.day_seconds = 0;
  }
  if (day == a.day) a.day_seconds += seconds;
  a.total += seconds;
}

double UsageLedger::Decayed(const std::string& owner, absl::Time now) const {
  auto it = accounts_.find(owner);
  if (it == accounts_.end()) return 0;
  return it->second.decayed * DecayFactor(now - it->second.as_of);
}

double UsageLedger::Today(const std::string& owner, absl::Time now) const {
  auto it = accounts_.find(owner);
  if (it == accounts_.end() || it->second.day != UtcDay(now)) return 0;
  return it->second.day_seconds;
}

OwnerUsageTotals UsageLedger::Totals(const std::string& owner, absl::Time now) const {
  OwnerUsageTotals t;
  t.decayed_gpu_seconds = Decayed(owner, now);
  t.today_gpu_seconds = Today(owner, now);
  if (auto it = accounts_.find(owner); it != accounts_.end()) {
    t.total_gpu_seconds = it->second.total;
  }
  return t;
}

std::vector<std::string> UsageLedger::Owners() const {
  std::vector<std::string> owners;
  owners.reserve(accounts_.size());
  for (const auto& [owner, account] : accounts_) owners.push_back(owner);
  return owners;
}

}  // namespace kbench::scheduler
