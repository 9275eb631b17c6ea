// Fair share's order, decay and retry limit, in C++ and as the SQL a fleet's claim runs.
#include "server/common/fair_share_policy.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace kbench {
namespace {

// Half-lives past which SQL stops ageing a charge: PostgreSQL's power() raises an underflow
// error where C's exp2 returns 0, and 2^-1000 (about 1e-301) is nothing already.
constexpr int kForgottenAfterHalfLives = 1000;

// Smaller ranks first: (boost, usage, priority, seq) with boost and priority negated.
auto Ordered(const FairShareRank& r) {
  return std::make_tuple(-std::max(r.priority, 0), r.owner_usage_seconds, -r.priority, r.seq);
}

}  // namespace

bool FairSharePolicy::Before(const FairShareRank& a, const FairShareRank& b) {
  return Ordered(a) < Ordered(b);
}

std::string FairSharePolicy::SqlOrderBy(absl::string_view priority, absl::string_view usage,
                                        absl::string_view seq) {
  return absl::StrCat("GREATEST(", priority, ", 0) DESC, ", usage, ", ", priority, " DESC, ", seq);
}

double FairSharePolicy::DecayFactor(absl::Duration elapsed) const {
  if (elapsed <= absl::ZeroDuration()) return 1;
  if (half_life_ <= absl::ZeroDuration()) return 0;
  return std::exp2(-absl::FDivDuration(elapsed, half_life_));
}

std::string FairSharePolicy::SqlDecayFactor(absl::string_view age_ns,
                                            absl::string_view half_life_ns) {
  return absl::StrCat("CASE WHEN ", half_life_ns, " > 0 THEN power(0.5, LEAST(",
                      kForgottenAfterHalfLives, ", GREATEST(0, ", age_ns, ") / ", half_life_ns,
                      ")) ELSE 0 END");
}

double FairSharePolicy::SqlHalfLifeNs() const {
  return static_cast<double>(absl::ToInt64Nanoseconds(half_life_));
}

}  // namespace kbench
