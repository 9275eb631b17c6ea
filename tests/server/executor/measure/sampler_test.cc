// Tests of the interleaved sampler with a fake clock: round-robin order, stopping per
// variant, discarded samples, progress throttling, cancellation and errors.
#include "server/executor/measure/sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"

namespace kbench::measure {
namespace {

// A clock that moves only when a fake sample "runs".
struct FakeClock {
  double t = 100.0;
  std::function<double()> fn() {
    return [this] { return t; };
  }
};

StoppingCriteria Criteria(double max_noise, int64_t min_samples, double min_time, double timeout) {
  StoppingCriteria c;
  c.max_noise = max_noise;
  c.min_samples = min_samples;
  c.min_time_seconds = min_time;
  c.timeout_seconds = timeout;
  return c;
}

// A sample function taking `seconds` of fake time and reporting it, appending `name` to `log`.
SampleFn Fixed(FakeClock* clock, double seconds, std::vector<std::string>* log,
               const std::string& name, int64_t launches = 1) {
  return [=]() -> absl::StatusOr<Sample> {
    clock->t += seconds;
    log->push_back(name);
    Sample s;
    s.seconds = seconds;
    s.launches = launches;
    return s;
  };
}

TEST(SampleInterleaved, StopsAVariantOnceItConverges) {
  FakeClock clock;
  std::vector<std::string> log;
  SamplerHooks hooks;
  hooks.now = clock.fn();
  absl::StatusOr<std::vector<VariantSamples>> r = SampleInterleaved(
      {"a"}, {Fixed(&clock, 0.01, &log, "a", 4)}, Criteria(0.005, 10, 0.05, 15), hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  const VariantSamples& a = (*r)[0];
  EXPECT_EQ(a.kept.size(), 10u);  // min_samples binds (0.1 s measured > 0.05 s)
  EXPECT_TRUE(a.decision.converged);
  EXPECT_EQ(a.discarded, 0);
  EXPECT_NEAR(a.measured_seconds, 0.1, 1e-12);
  EXPECT_NEAR(a.wall_seconds, 0.1, 1e-9);
  ASSERT_EQ(a.per_launch_seconds().size(), 10u);
  EXPECT_DOUBLE_EQ(a.per_launch_seconds()[0], 0.0025);
}

TEST(SampleInterleaved, AlternatesVariantsAndSkipsOnesThatStopped) {
  FakeClock clock;
  std::vector<std::string> log;
  SamplerHooks hooks;
  hooks.now = clock.fn();
  // "fast" reaches min_time after 2 samples, "slow" needs 5 (min_time 0.5 s).
  absl::StatusOr<std::vector<VariantSamples>> r = SampleInterleaved(
      {"slow", "fast"}, {Fixed(&clock, 0.1, &log, "slow"), Fixed(&clock, 0.25, &log, "fast")},
      Criteria(0.005, 2, 0.5, 15), hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<std::string> want = {"slow", "fast", "slow", "fast", "slow", "slow", "slow"};
  EXPECT_EQ(log, want);
  EXPECT_EQ((*r)[0].name, "slow");
  EXPECT_EQ((*r)[0].kept.size(), 5u);
  EXPECT_EQ((*r)[1].name, "fast");
  EXPECT_EQ((*r)[1].kept.size(), 2u);
  EXPECT_TRUE((*r)[0].decision.converged);
  EXPECT_TRUE((*r)[1].decision.converged);
}

TEST(SampleInterleaved, CountsDiscardedSamplesWithoutKeepingThem) {
  FakeClock clock;
  int calls = 0;
  std::vector<double> sleeps;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    clock.t += 0.1;
    Sample s;
    s.seconds = 0.1;
    s.sm_clock_mhz = 1980;
    s.discard = (++calls % 3 == 0);  // every third sample "throttled"
    if (s.discard) s.seconds = 0.5;  // a throttled sample is slower: must not pollute stats
    return s;
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  hooks.sleep = [&](double seconds) { sleeps.push_back(seconds); };
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"a"}, {fn}, Criteria(0.005, 10, 0.0, 15), hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  const VariantSamples& a = (*r)[0];
  EXPECT_EQ(a.kept.size(), 10u);
  EXPECT_EQ(a.discarded, 4);  // calls 3, 6, 9, 12 of 14
  // Each discard follows a kept sample: the back-off starts over at its first step each time.
  EXPECT_EQ(sleeps, std::vector<double>(4, DiscardBackoffSeconds(1)));
  for (const Sample& s : a.kept) EXPECT_DOUBLE_EQ(s.seconds, 0.1);
  EXPECT_NEAR(a.measured_seconds, 1.0, 1e-12);
  EXPECT_TRUE(a.decision.converged);
}

TEST(DiscardBackoffSeconds, GrowsFromTenMillisecondsToHalfASecond) {
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(1), 0.01);
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(2), 0.02);
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(3), 0.04);
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(6), 0.32);
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(7), 0.5);
  EXPECT_DOUBLE_EQ(DiscardBackoffSeconds(1000), 0.5);
}

// A sample taken at 1000 MHz against a floor of 1485 MHz (75% of a 1980 MHz maximum).
Sample Throttled(double seconds) {
  Sample s;
  s.seconds = seconds;
  s.discard = true;
  s.sm_clock_mhz = 1000;
  s.clock_floor_mhz = 1485;
  return s;
}

TEST(SampleInterleaved, FailsNamingTheClockAfterTooManyDiscardsInARow) {
  FakeClock clock;
  int calls = 0;
  std::vector<double> sleeps;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    ++calls;
    clock.t += 0.001;
    return Throttled(0.001);
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  hooks.sleep = [&](double seconds) {
    sleeps.push_back(seconds);
    clock.t += seconds;
  };
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"copy/vectorized"}, {fn}, Criteria(0.005, 10, 0.0, 1000), hooks);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_EQ(calls, SamplerHooks::kMaxConsecutiveDiscards);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "copy/vectorized")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "1000 MHz")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "floor of 1485 MHz")) << r.status();
  // The back-off grew between the discards.
  ASSERT_EQ(sleeps.size(), static_cast<size_t>(SamplerHooks::kMaxConsecutiveDiscards - 1));
  for (size_t i = 1; i < sleeps.size(); ++i) EXPECT_GE(sleeps[i], sleeps[i - 1]);
  EXPECT_GT(sleeps.back(), sleeps.front());
}

TEST(SampleInterleaved, FailsWhenTheTimeoutComesWithNoSampleKept) {
  // Fewer discards than the cap, but the timeout arrives first: a run that keeps nothing must
  // fail rather than publish a median of 0.
  FakeClock clock;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    clock.t += 0.5;
    return Throttled(0.5);
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  hooks.sleep = [](double) {};
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"a"}, {fn}, Criteria(0.005, 10, 0.5, 3), hooks);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no sample kept (6 discarded")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "floor of 1485 MHz")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "samples 0 < min_samples 10")) << r.status();
}

TEST(SampleInterleaved, ReportsTimeoutReasonForANoisyVariant) {
  FakeClock clock;
  int calls = 0;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    clock.t += 1.0;
    Sample s;
    s.seconds = (++calls % 2) ? 1.0 : 3.0;
    return s;
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"noisy"}, {fn}, Criteria(0.005, 10, 0.0, 15), hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].kept.size(), 15u);
  EXPECT_TRUE(absl::StartsWith((*r)[0].decision.reason, "timeout")) << (*r)[0].decision.reason;
  EXPECT_TRUE(absl::StrContains((*r)[0].decision.reason, "noise")) << (*r)[0].decision.reason;
}

TEST(SampleInterleaved, ThrottlesProgressAndReportsTheFinalState) {
  FakeClock clock;
  std::vector<std::string> log;
  std::vector<ProgressUpdate> updates;
  SamplerHooks hooks;
  hooks.now = clock.fn();
  hooks.progress_interval_seconds = 0.2;
  hooks.progress = [&](const ProgressUpdate& u) { updates.push_back(u); };
  absl::StatusOr<std::vector<VariantSamples>> r = SampleInterleaved(
      {"a"}, {Fixed(&clock, 0.05, &log, "a")}, Criteria(0.005, 20, 0.0, 15), hooks);
  ASSERT_TRUE(r.ok()) << r.status();
  // 20 samples of 0.05 s = 1 s; at most one update per 0.2 s plus the final one.
  EXPECT_GE(updates.size(), 5u);
  EXPECT_LE(updates.size(), 7u);
  EXPECT_EQ(updates.back().variant, "a");
  EXPECT_EQ(updates.back().samples, 20);
  EXPECT_DOUBLE_EQ(updates.back().noise, 0);
  EXPECT_NEAR(updates.back().elapsed_seconds, 1.0, 1e-9);
}

TEST(SampleInterleaved, ReturnsCancelledWhenTheFlagIsRaised) {
  FakeClock clock;
  std::atomic<bool> cancelled{false};
  int calls = 0;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    clock.t += 0.01;
    if (++calls == 5) cancelled = true;
    Sample s;
    s.seconds = 0.01;
    return s;
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  hooks.cancelled = &cancelled;
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"a"}, {fn}, Criteria(0.005, 1000, 0.0, 15), hooks);
  EXPECT_TRUE(absl::IsCancelled(r.status())) << r.status();
  EXPECT_EQ(calls, 5);  // no sample after the flag was seen
}

TEST(SampleInterleaved, ReturnsTheFirstSampleError) {
  FakeClock clock;
  int calls = 0;
  SampleFn fn = [&]() -> absl::StatusOr<Sample> {
    if (++calls == 3) return absl::InternalError("cudaErrorIllegalAddress in kernel");
    clock.t += 0.01;
    Sample s;
    s.seconds = 0.01;
    return s;
  };
  SamplerHooks hooks;
  hooks.now = clock.fn();
  absl::StatusOr<std::vector<VariantSamples>> r =
      SampleInterleaved({"a"}, {fn}, Criteria(0.005, 100, 0.0, 15), hooks);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "cudaErrorIllegalAddress"));
}

TEST(SampleInterleaved, RejectsMismatchedNamesAndFunctions) {
  SamplerHooks hooks;
  EXPECT_FALSE(SampleInterleaved({"a", "b"}, {SampleFn()}, StoppingCriteria(), hooks).ok());
  EXPECT_FALSE(SampleInterleaved({}, {}, StoppingCriteria(), hooks).ok());
}

}  // namespace
}  // namespace kbench::measure
