// The one fair-share and retry policy: its order, its decay, its retry limit, and the SQL a
// fleet's claim runs written from the same rule.
#include "server/common/fair_share_policy.h"

#include <gtest/gtest.h>

namespace kbench {
namespace {

TEST(FairSharePolicy, AnAdminsBoostGoesBeforeTheLeastUsedOwner) {
  EXPECT_TRUE(FairSharePolicy::Before({3, 100, 9}, {0, 0, 1}));
  EXPECT_FALSE(FairSharePolicy::Before({0, 0, 1}, {3, 100, 9}));
}

TEST(FairSharePolicy, TheLeastUsedOwnerGoesBeforeAnOlderJob) {
  EXPECT_TRUE(FairSharePolicy::Before({0, 1, 9}, {0, 2, 1}));
}

TEST(FairSharePolicy, AtEqualUsageTheHigherPriorityThenTheOlderJobGoesFirst) {
  EXPECT_TRUE(FairSharePolicy::Before({0, 5, 9}, {-1, 5, 1}));
  EXPECT_TRUE(FairSharePolicy::Before({0, 5, 1}, {0, 5, 2}));
  EXPECT_FALSE(FairSharePolicy::Before({0, 5, 2}, {0, 5, 2}));  // strict
}

TEST(FairSharePolicy, TheSqlOrderRanksByTheSameTermsInTheSameOrder) {
  EXPECT_EQ(FairSharePolicy::SqlOrderBy("p", "u", "s"), "GREATEST(p, 0) DESC, u, p DESC, s");
}

TEST(FairSharePolicy, UsageHalvesEveryHalfLifeAndNeverGrows) {
  const FairSharePolicy policy(absl::Hours(1));
  EXPECT_DOUBLE_EQ(policy.DecayFactor(absl::Hours(2)), 0.25);
  EXPECT_DOUBLE_EQ(policy.DecayFactor(-absl::Hours(1)), 1);
  EXPECT_DOUBLE_EQ(FairSharePolicy(absl::ZeroDuration()).DecayFactor(absl::Seconds(1)), 0);
}

TEST(FairSharePolicy, TheSqlDecayIsCappedSoPostgresNeverUnderflows) {
  const std::string sql = FairSharePolicy::SqlDecayFactor("age", "hl");
  EXPECT_NE(sql.find("LEAST(1000, GREATEST(0, age) / hl)"), std::string::npos) << sql;
  EXPECT_NE(sql.find("CASE WHEN hl > 0"), std::string::npos) << sql;
}

TEST(FairSharePolicy, AJobIsRetriedUntilItsAttemptsAreSpent) {
  EXPECT_TRUE(FairSharePolicy::MayRetry(FairSharePolicy::kMaxAttempts - 1));
  EXPECT_FALSE(FairSharePolicy::MayRetry(FairSharePolicy::kMaxAttempts));
  EXPECT_TRUE(FairSharePolicy::MayRetry(2, /*max_attempts=*/3));
}

}  // namespace
}  // namespace kbench
