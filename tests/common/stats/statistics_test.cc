// Each statistic against reference values computed by R 4 and SciPy 1.10.1 (Debian 12's
// python3-scipy); the calls that produced them are quoted beside each value.
#include <cmath>
#include <vector>

#include "common/stats/bootstrap.h"
#include "common/stats/descriptive.h"
#include "common/stats/normality.h"
#include "common/stats/two_sample_tests.h"
#include "gtest/gtest.h"

namespace kbench::analysis {
namespace {

// R's `sleep` data set (Cushny & Peebles): extra hours of sleep under two drugs.
const std::vector<double> kSleepGroup1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleepGroup2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

// Symmetric, light-tailed: looks normal.
const std::vector<double> kNearNormal = {1.02, 0.98, 1.05, 0.97, 1.01, 1.00, 0.99, 1.03,
                                         0.96, 1.04, 1.00, 1.02, 0.98, 1.01, 0.99, 1.00,
                                         1.03, 0.97, 1.01, 0.99, 1.02, 0.98};
// A timing-like sample: a floor with a few long outliers.
const std::vector<double> kSkewed = {1.0,  1.0,  1.01, 1.0, 1.02, 1.0, 1.0, 1.01, 1.0,
                                     1.0,  1.05, 1.0,  1.0, 1.01, 1.0, 1.0, 1.3,  1.0,
                                     1.02, 1.0,  1.0,  1.0, 1.6,  1.0, 1.01};

TEST(Descriptive, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median(kSleepGroup1), 0.35);  // R: median(sleep$extra[1:10])
}

TEST(Descriptive, SampleVarianceUsesNMinusOne) {
  // R: var(sleep$extra[1:10]) = 3.200556
  EXPECT_NEAR(SampleVariance(kSleepGroup1), 3.200556, 1e-6);
}

TEST(WelchTTest, MatchesRSleepData) {
  // R: t.test(extra ~ group, data = sleep) -> t = -1.8608, df = 17.776, p-value = 0.07939
  // SciPy: ttest_ind(g1, g2, equal_var=False) -> -1.8608134674868526, 0.07939414018735823
  absl::StatusOr<WelchT> t = WelchTTest(kSleepGroup1, kSleepGroup2);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NEAR(t->t, -1.8608134674868526, 1e-12);
  EXPECT_NEAR(t->degrees_of_freedom, 17.776, 5e-4);
  EXPECT_NEAR(t->p_value, 0.07939414018735823, 1e-9);
}

TEST(WelchTTest, RejectsASampleOfOne) {
  EXPECT_FALSE(WelchTTest(std::vector<double>{1}, kSleepGroup2).ok());
}

TEST(WelchTTest, ConstantEqualSamplesHavePValueOne) {
  absl::StatusOr<WelchT> t = WelchTTest(std::vector<double>{2, 2}, std::vector<double>{2, 2, 2});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->p_value, 1);
}

TEST(MannWhitneyUTest, MatchesRSleepDataWithTies) {
  // R: wilcox.test(extra ~ group, data = sleep, exact = FALSE) -> W = 25.5, p-value = 0.06933
  // SciPy: mannwhitneyu(g1, g2, method='asymptotic') -> 25.5, 0.06932757543362658
  absl::StatusOr<MannWhitneyU> u = MannWhitneyUTest(kSleepGroup1, kSleepGroup2);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_DOUBLE_EQ(u->u, 25.5);
  EXPECT_NEAR(u->p_value, 0.06932757543362658, 1e-9);
  EXPECT_LT(u->z, 0);
}

TEST(MannWhitneyUTest, IsSymmetricInItsSamples) {
  absl::StatusOr<MannWhitneyU> ab = MannWhitneyUTest(kSleepGroup1, kSleepGroup2);
  absl::StatusOr<MannWhitneyU> ba = MannWhitneyUTest(kSleepGroup2, kSleepGroup1);
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_NEAR(ab->p_value, ba->p_value, 1e-12);
  EXPECT_DOUBLE_EQ(ab->u + ba->u, 100);  // U_a + U_b = n_a n_b
}

TEST(MannWhitneyUTest, AllTiedHasPValueOne) {
  absl::StatusOr<MannWhitneyU> u =
      MannWhitneyUTest(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->p_value, 1);
}

TEST(DAgostinoPearson, NearNormalSampleMatchesSciPy) {
  // SciPy: skewtest -> 0.3372660944296352, kurtosistest -> -0.7212131583693456,
  //        normaltest -> 0.6338968382569065, p = 0.7283683240297356
  absl::StatusOr<NormalityTest> t = DAgostinoPearson(kNearNormal);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NEAR(t->skewness_z, 0.3372660944296352, 1e-9);
  EXPECT_NEAR(t->kurtosis_z, -0.7212131583693456, 1e-9);
  EXPECT_NEAR(t->k2, 0.6338968382569065, 1e-9);
  EXPECT_NEAR(t->p_value, 0.7283683240297356, 1e-9);
}

TEST(DAgostinoPearson, SkewedSampleMatchesSciPy) {
  // SciPy: skewtest -> 5.30146394643387, kurtosistest -> 4.455675125280172,
  //        normaltest -> 47.95856079737867, p = 3.854169788830973e-11
  absl::StatusOr<NormalityTest> t = DAgostinoPearson(kSkewed);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NEAR(t->skewness_z, 5.30146394643387, 1e-9);
  EXPECT_NEAR(t->kurtosis_z, 4.455675125280172, 1e-9);
  EXPECT_NEAR(t->k2, 47.95856079737867, 1e-8);
  EXPECT_NEAR(t->p_value / 3.854169788830973e-11, 1, 1e-6);
}

TEST(DAgostinoPearson, RefusesTooFewOrConstantValues) {
  EXPECT_FALSE(DAgostinoPearson(kSleepGroup1).ok());
  EXPECT_FALSE(DAgostinoPearson(std::vector<double>(30, 1.0)).ok());
}

TEST(BootstrapMedianChange, ScaledCopyGivesItsFactor) {
  std::vector<double> slower;
  for (double v : kSkewed) slower.push_back(v * 1.10);
  absl::StatusOr<ChangeInterval> c = BootstrapMedianChange(kSkewed, slower);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NEAR(c->change_percent, 10, 1e-9);
  EXPECT_LT(c->low_percent, c->high_percent);
  EXPECT_GT(c->low_percent, 0);
  EXPECT_LE(c->low_percent, 10 + 1e-9);
  EXPECT_GE(c->high_percent, 10 - 1e-9);
}

TEST(BootstrapMedianChange, SameSeedSameInterval) {
  absl::StatusOr<ChangeInterval> a = BootstrapMedianChange(kSleepGroup2, kNearNormal);
  absl::StatusOr<ChangeInterval> b = BootstrapMedianChange(kSleepGroup2, kNearNormal);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->low_percent, b->low_percent);
  EXPECT_EQ(a->high_percent, b->high_percent);
}

TEST(BootstrapMedianChange, RejectsNonPositiveBaselineMedian) {
  absl::StatusOr<ChangeInterval> c =
      BootstrapMedianChange(std::vector<double>{0, 0, 0}, kSleepGroup2);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BootstrapMedianChange, RejectsTooFewResamples) {
  BootstrapOptions options;
  options.resamples = 10;
  EXPECT_FALSE(BootstrapMedianChange(kNearNormal, kNearNormal, options).ok());
}

}  // namespace
}  // namespace kbench::analysis
