// Tests of the stopping rule: convergence, the minimums, the noise_stable early stop, and the
// timeout naming whichever condition was unmet.
#include "server/executor/measure/stopping_rule.h"

#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/match.h"

namespace kbench::measure {
namespace {

StoppingCriteria Criteria(double max_noise, int64_t min_samples, double min_time, double timeout) {
  StoppingCriteria c;
  c.max_noise = max_noise;
  c.min_samples = min_samples;
  c.min_time_seconds = min_time;
  c.timeout_seconds = timeout;
  return c;
}

TEST(StoppingCriteria, DefaultsMatchTheTimingProtocol) {
  const StoppingCriteria c;
  EXPECT_DOUBLE_EQ(c.max_noise, 0.005);
  EXPECT_EQ(c.min_samples, 10);
  EXPECT_DOUBLE_EQ(c.min_time_seconds, 0.5);
  EXPECT_DOUBLE_EQ(c.timeout_seconds, 15.0);
}

TEST(StoppingRule, ConvergesOnceNoiseIsLowAndBothMinimumsAreMet) {
  StoppingRule rule(Criteria(0.01, 10, 0.5, 15));
  for (int i = 0; i < 9; ++i) rule.Add(1e-3 * (1 + (i % 2) * 1e-4), 0.1);
  EXPECT_FALSE(rule.Check(1.0).stop) << "9 samples < min_samples 10";
  rule.Add(1e-3, 0.1);
  const StopDecision d = rule.Check(1.0);
  EXPECT_TRUE(d.stop);
  EXPECT_TRUE(d.converged);
  EXPECT_TRUE(absl::StartsWith(d.reason, "converged")) << d.reason;
}

TEST(StoppingRule, ConvergesOnTheMediansPrecisionDespiteOutliers) {
  // 1 sample in 8 is twice as slow (a preempted launch, say): the relative stddev stays near
  // 30%, far above 0.5%, but the median is pinned at 1.0 and its 95% interval is exact.
  StoppingRule rule(Criteria(0.005, 10, 0.0, 15));
  StopDecision d;
  int i = 0;
  for (; i < 1000 && !d.stop; ++i) {
    rule.Add(i % 8 == 7 ? 2.0 : 1.0 + 1e-4 * (i % 3), 0.01);
    d = rule.Check(1.0);
  }
  ASSERT_TRUE(d.stop);
  EXPECT_TRUE(d.converged);
  EXPECT_EQ(d.criterion, StopCriterion::kMedianPrecision);
  EXPECT_GT(rule.noise(), 0.2);
  EXPECT_LE(rule.median_precision(), 0.005);
  EXPECT_TRUE(absl::StartsWith(d.reason, "converged: median's 95% CI")) << d.reason;
  EXPECT_EQ(i, 10) << "converges as soon as the minimums allow";
}

TEST(StoppingRule, SaysWhenTheRelativeStddevStoppedTheRun) {
  // Two samples 0.2% apart: below the 6 samples the median's interval needs, only the stddev
  // can judge; with min_samples 2 it converges on the stddev.
  StoppingRule rule(Criteria(0.01, 2, 0.0, 15));
  rule.Add(1.0, 0.1);
  rule.Add(1.002, 0.1);
  const StopDecision d = rule.Check(1.0);
  EXPECT_TRUE(d.converged);
  EXPECT_EQ(d.criterion, StopCriterion::kRelativeStddev);
  EXPECT_TRUE(std::isinf(rule.median_precision()));
}

TEST(StoppingRule, KeepsSamplingUntilMinimumMeasuredTimeIsReached) {
  StoppingRule rule(Criteria(0.01, 2, 0.5, 15));
  for (int i = 0; i < 49; ++i) rule.Add(1e-3, 0.01);  // 0.49 s measured, zero noise
  EXPECT_FALSE(rule.Check(1.0).stop);
  rule.Add(1e-3, 0.02);
  EXPECT_NEAR(rule.measured_seconds(), 0.51, 1e-12);
  EXPECT_TRUE(rule.Check(1.0).converged);
}

TEST(StoppingRule, DoesNotConvergeWhileNoiseIsAboveTarget) {
  StoppingRule rule(Criteria(0.005, 10, 0.0, 15));
  // Alternating 1.0 / 1.1: relative stddev about 4.8%, well above 0.5%.
  for (int i = 0; i < 20; ++i) rule.Add(i % 2 == 0 ? 1.0 : 1.1, 0.1);
  EXPECT_GT(rule.noise(), 0.04);
  EXPECT_FALSE(rule.Check(1.0).stop);
}

TEST(StoppingRule, StopsEarlyWhenNoiseEstimateHasStabilisedAboveTarget) {
  StoppingRule rule(Criteria(0.005, 10, 0.0, 1e9));
  int i = 0;
  StopDecision d;
  for (; i < 10000 && !d.stop; ++i) {
    rule.Add(i % 2 == 0 ? 1.0 : 1.1, 0.01);
    d = rule.Check(0.0);
  }
  ASSERT_TRUE(d.stop) << "never stopped";
  EXPECT_FALSE(d.converged);
  EXPECT_EQ(d.criterion, StopCriterion::kNoiseStable);
  EXPECT_TRUE(absl::StartsWith(d.reason, "noise_stable")) << d.reason;
  EXPECT_TRUE(absl::StrContains(d.reason, "0.50% target")) << d.reason;
  // The window must fill first: at least kNoiseWindow + 1 samples.
  EXPECT_GT(i, static_cast<int>(StoppingRule::kNoiseWindow));
}

TEST(StoppingRule, DoesNotCallNoiseStableWhileNoiseKeepsGrowing) {
  StoppingRule rule(Criteria(0.001, 10, 0.0, 100));
  // A drifting series: each sample 1% slower than the last; the noise estimate keeps rising.
  double x = 1.0;
  for (int i = 0; i < 300; ++i) {
    rule.Add(x, 0.01);
    x *= 1.01;
    const StopDecision d = rule.Check(1.0);
    ASSERT_FALSE(d.stop) << "stopped after " << i + 1 << " samples: " << d.reason;
  }
}

TEST(StoppingRule, TimeoutNamesTooFewSamples) {
  StoppingRule rule(Criteria(0.005, 10, 0.5, 15));
  for (int i = 0; i < 3; ++i) rule.Add(1.0, 1.0);
  EXPECT_FALSE(rule.Check(14.9).stop);
  const StopDecision d = rule.Check(15.0);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.converged);
  EXPECT_EQ(d.criterion, StopCriterion::kTimeout);
  EXPECT_TRUE(absl::StartsWith(d.reason, "timeout")) << d.reason;
  EXPECT_TRUE(absl::StrContains(d.reason, "samples 3 < min_samples 10")) << d.reason;
}

TEST(StoppingRule, TimeoutNamesTooLittleMeasuredTime) {
  StoppingRule rule(Criteria(0.005, 10, 0.5, 15));
  for (int i = 0; i < 20; ++i) rule.Add(1e-6, 1e-6);
  const StopDecision d = rule.Check(16.0);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.converged);
  EXPECT_TRUE(absl::StrContains(d.reason, "measured time")) << d.reason;
  EXPECT_TRUE(absl::StrContains(d.reason, "< min_time 0.5 s")) << d.reason;
}

TEST(StoppingRule, TimeoutNamesNoiseAboveTarget) {
  StoppingRule rule(Criteria(0.005, 10, 0.0, 15));
  // A few noisy samples: not enough for the noise_stable window, noise far above target.
  for (int i = 0; i < 20; ++i) rule.Add(i % 2 == 0 ? 1.0 : 2.0, 0.1);
  const StopDecision d = rule.Check(15.0);
  EXPECT_TRUE(d.stop);
  EXPECT_FALSE(d.converged);
  EXPECT_TRUE(absl::StrContains(d.reason, "> target 0.50%")) << d.reason;
}

TEST(StoppingRule, PrefersConvergedOverTimeoutWhenBothHold) {
  StoppingRule rule(Criteria(0.01, 2, 0.0, 1));
  rule.Add(1.0, 1.0);
  rule.Add(1.0, 1.0);
  const StopDecision d = rule.Check(100.0);
  EXPECT_TRUE(d.converged);
  EXPECT_NE(d.criterion, StopCriterion::kTimeout);
}

TEST(StoppingRule, NeverConvergesOnOneSample) {
  // One sample's noise is undefined (infinite), whatever min_samples says.
  StoppingRule rule(Criteria(0.01, 1, 0.0, 15));
  rule.Add(1.0, 1.0);
  EXPECT_FALSE(rule.Check(0.0).stop);
}

}  // namespace
}  // namespace kbench::measure
