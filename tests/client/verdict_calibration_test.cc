// The calibration panel of kbctl diff's verdicts (issue 26, item 5): simulated devices whose
// answer is known, fed through the code path of `kbctl diff` (SameKeyMedians and the noise
// estimate over a ListHistory page, then CompareJobs with its family correction and verdict),
// held to bounds that fail when the rule is wrong:
//  - a fresh key's first pair calls no false SLOWER/FASTER (<= 5 %);
//  - a device whose history resolves 3 % detects a 3 % slowdown >= 90 %, A/A false <= 5 %;
//  - a device that cannot resolve 3 % says UNSURE, never SAME;
//  - the H100-like device (A/A p95 0.14 %) detects 0.5 % with --min-effect 0.5;
//  - a step in the history does not widen the threshold for ever;
//  - --fail-on slower over 20 unchanged keys fails <= 5 % of clean runs.
// Each device draws per-job offsets from a heavy-tailed between-job distribution (Student t
// with 3 degrees of freedom, plus rare outlier jobs) and within-job samples around them with
// heavy tails. Deterministic seeds; the whole panel runs in a few seconds.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/verdict/fail_on.h"
#include "client/verdict/history_noise.h"
#include "client/verdict/job_diff.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

// The rounds each rate is measured over: a rate's binomial standard error is then <= 1.6 %.
constexpr int kRounds = 400;

struct Device {
  // Scale of the between-job offsets of the log median (Student t, 3 degrees of freedom).
  double between = 0.003;
  // Jobs hit by interference: this fraction, slower by `outlier` (log) on top.
  double outlier_rate = 0.02;
  double outlier = 0.03;
  // Within a job: samples' relative spread (heavy-tailed, skewed to slower).
  double within = 0.01;
  int samples = 60;
};

struct Rates {
  int slower = 0, faster = 0, same = 0, unsure = 0;
  // Diffs whose history estimate used exactly the results since the step (the scenario's).
  int newest_segment_found = 0;
  std::vector<double> abs_changes;  // |change_percent| of each diff

  // The nearest-rank 95th percentile of |change|, as aa_calibration.sh reports it.
  double P95AbsChange() {
    std::sort(abs_changes.begin(), abs_changes.end());
    return abs_changes[static_cast<size_t>(0.95 * (abs_changes.size() - 1))];
  }
  double Of(int count) const { return static_cast<double>(count) / kRounds; }
};

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : rng_(seed) {}

  // One job's level: log offset from the key's true level.
  double JobOffset(const Device& d) {
    double offset = d.between * t3_(rng_);
    if (uniform_(rng_) < d.outlier_rate) offset += d.outlier;
    return offset;
  }

  // A job's result: samples around level x exp(offset), its median and the median's 95 %
  // interval by order statistics (as a distribution-free interval of a median is taken).
  v1::VariantResult Result(const std::string& variant, double level, const Device& d) {
    const double center = level * std::exp(JobOffset(d));
    std::vector<double> x;
    for (int i = 0; i < d.samples; ++i) x.push_back(center * (1 + d.within * std::abs(t3_(rng_))));
    std::sort(x.begin(), x.end());
    const int n = d.samples;
    const int half = static_cast<int>(std::ceil(1.96 * std::sqrt(n) / 2));
    v1::VariantResult r;
    r.set_variant(variant);
    r.mutable_stats()->set_median_seconds(x[n / 2]);
    r.mutable_stats()->set_median_ci_low_seconds(x[std::max(0, n / 2 - half)]);
    r.mutable_stats()->set_median_ci_high_seconds(x[std::min(n - 1, n / 2 + half)]);
    for (double v : x) r.add_sample_seconds(v);
    return r;
  }

  // `older` results at `level` x `step_from`, then `newer` at `level`, newest first.
  void AddHistory(const std::string& variant, double level, const Device& d, int newer, int older,
                  double step_from, v1::ListHistoryResponse* out) {
    for (int i = 0; i < newer + older; ++i) {
      v1::HistoryEntry* e = out->add_entries();
      e->mutable_key()->set_kernel("softmax");
      e->mutable_key()->set_variant(variant);
      e->set_job_id(absl::StrCat("h", i));
      e->set_correct(true);
      e->set_median_seconds(level * (i < newer ? 1 : step_from) * std::exp(JobOffset(d)));
    }
  }

 private:
  std::mt19937_64 rng_;
  std::student_t_distribution<double> t3_{3};
  std::uniform_real_distribution<double> uniform_{0, 1};
};

v1::Job Job(const std::string& id, std::vector<v1::VariantResult> variants) {
  v1::Job job;
  job.set_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.mutable_spec()->set_kind(v1::JOB_KIND_BENCHMARK);
  job.mutable_spec()->set_kernel("softmax");
  for (v1::VariantResult& v : variants) *job.mutable_result()->add_variants() = std::move(v);
  return job;
}

// The history page a diff reads: the compared jobs' own entries, then `history` older ones.
v1::ListHistoryResponse WithTheComparedJobs(const std::vector<std::string>& variants,
                                            const v1::ListHistoryResponse& history) {
  v1::ListHistoryResponse page;
  for (const char* id : {"cand", "base"}) {
    for (const std::string& variant : variants) {
      v1::HistoryEntry* e = page.add_entries();
      e->mutable_key()->set_kernel("softmax");
      e->mutable_key()->set_variant(variant);
      e->set_job_id(id);
      e->set_correct(true);
      e->set_median_seconds(1);
    }
  }
  for (const v1::HistoryEntry& e : history.entries()) *page.add_entries() = e;
  return page;
}

struct Scenario {
  Device device;
  double slowdown = 0;  // the candidate's true change, relative
  int history = 20;     // results after the last step (0: a fresh key)
  int before_step = 0;  // results before it
  double step_from = 1;
  double min_effect_percent = 3;
  int keys = 1;
};

// One diff: a fresh history and a fresh pair of jobs for each key.
v1::JobComparison OneDiff(Simulator& sim, const Scenario& s) {
  std::vector<std::string> variants;
  std::vector<v1::VariantResult> base, cand;
  v1::ListHistoryResponse history;
  for (int k = 0; k < s.keys; ++k) {
    const std::string variant = absl::StrCat("v", k);
    variants.push_back(variant);
    const double level = 1e-3 * (1 + k);
    sim.AddHistory(variant, level, s.device, s.history, s.before_step, s.step_from, &history);
    base.push_back(sim.Result(variant, level, s.device));
    cand.push_back(sim.Result(variant, level * (1 + s.slowdown), s.device));
  }
  const v1::ListHistoryResponse page = WithTheComparedJobs(variants, history);
  DiffOptions options;
  options.min_effect_percent = s.min_effect_percent;
  for (const std::string& variant : variants) {
    options.history_noise[variant] = NoiseOfKey(page, "base", variant, {"base", "cand"});
  }
  absl::StatusOr<v1::JobComparison> c = CompareJobs(Job("base", base), Job("cand", cand), options);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : v1::JobComparison{};
}

std::string Describe(const Rates& r) {
  return absl::StrCat("SLOWER ", r.slower, " FASTER ", r.faster, " SAME ", r.same, " UNSURE ",
                      r.unsure, " of ", kRounds, " (history since the step read right in ",
                      r.newest_segment_found, ")");
}

// Seeds are fixed; this offset moves them all at once to check that no bound holds by luck.
constexpr uint64_t kSeedOffset = 0;

Rates Simulate(const Scenario& s, uint64_t seed) {
  Simulator sim(seed + kSeedOffset);
  Rates r;
  for (int i = 0; i < kRounds; ++i) {
    const v1::JobComparison c = OneDiff(sim, s);
    for (const v1::VariantComparison& v : c.variants()) {
      r.slower += v.verdict() == v1::VERDICT_SLOWER;
      r.faster += v.verdict() == v1::VERDICT_FASTER;
      r.same += v.verdict() == v1::VERDICT_SAME;
      r.unsure += v.verdict() == v1::VERDICT_UNSURE;
      r.newest_segment_found += v.history_results() == s.history;
      r.abs_changes.push_back(std::abs(v.change_percent()));
    }
  }
  // The measured rates, for docs/benchmarks.md (ctest --output-on-failure -V shows them).
  std::printf("panel seed %llu: %s\n", static_cast<unsigned long long>(seed), Describe(r).c_str());
  return r;
}

// A device whose history resolves 3 %: between-job scale 0.2 %, 1 % of jobs 3 % slower.
Device Quiet() { return {0.002, 0.01, 0.03, 0.01, 60}; }
// The 2-core cpu device of the issue: between-job scale 3 %, outliers of 15 %.
Device Busy() { return {0.03, 0.05, 0.15, 0.02, 60}; }
// The H100 calibrated copy: A/A |change| p95 0.14 % (docs/benchmarks.md section 13); a t3
// offset of scale 0.03 % and a tight job give about that.
Device HopperLike() { return {0.0003, 0.01, 0.001, 0.0005, 200}; }

TEST(VerdictCalibration, AFreshKeysFirstPairCallsNoFalseChangeOnABusyDevice) {
  Scenario s{Busy()};
  s.history = 0;
  const Rates r = Simulate(s, 1);
  EXPECT_LE(r.Of(r.slower + r.faster), 0.05) << Describe(r);
  EXPECT_EQ(r.same, 0) << "a fresh key cannot rule out 3 %: " << Describe(r);
}

TEST(VerdictCalibration, AQuietDevicesAADiffsAreRarelyFalse) {
  const Rates r = Simulate(Scenario{Quiet()}, 2);
  EXPECT_LE(r.Of(r.slower + r.faster), 0.05) << Describe(r);
  EXPECT_GE(r.Of(r.same), 0.80) << Describe(r);
}

TEST(VerdictCalibration, AQuietDeviceDetectsAThreePercentSlowdown) {
  Scenario s{Quiet()};
  s.slowdown = 0.03;
  const Rates r = Simulate(s, 3);
  EXPECT_GE(r.Of(r.slower), 0.90) << Describe(r);
}

TEST(VerdictCalibration, ABusyDeviceSaysUnsureNeverSame) {
  for (double slowdown : {0.0, 0.03}) {
    Scenario s{Busy()};
    s.slowdown = slowdown;
    const Rates r = Simulate(s, 4);
    EXPECT_EQ(r.same, 0) << "slowdown " << slowdown << ": " << Describe(r);
    if (slowdown == 0) {
      EXPECT_LE(r.Of(r.slower + r.faster), 0.05) << Describe(r);
    }
    EXPECT_GE(r.Of(r.unsure), 0.80) << "slowdown " << slowdown << ": " << Describe(r);
  }
}

TEST(VerdictCalibration, AHopperLikeDeviceDetectsHalfAPercentWithThatMinimumEffect) {
  Scenario s{HopperLike()};
  s.min_effect_percent = 0.5;
  Rates aa = Simulate(s, 5);
  EXPECT_LE(aa.Of(aa.slower + aa.faster), 0.05) << Describe(aa);
  // The simulated device is the measured one: A/A |change| p95 0.14 % on the H100.
  EXPECT_GT(aa.P95AbsChange(), 0.10);
  EXPECT_LT(aa.P95AbsChange(), 0.20);
  std::printf("panel: Hopper-like A/A |change| p95 %.3f %%\n", aa.P95AbsChange());
  s.slowdown = 0.005;
  const Rates r = Simulate(s, 6);
  EXPECT_GE(r.Of(r.slower), 0.90) << Describe(r);
}

TEST(VerdictCalibration, AStepInTheHistoryDoesNotHideALaterSlowdown) {
  // Fifteen results from before a 20 % regression, sixteen since: the threshold is read from
  // the sixteen, so a further 3 % is still seen, and A/A stays clean.
  Scenario s{Quiet()};
  s.history = 16;
  s.before_step = 15;
  s.step_from = 1 / 1.2;
  const Rates aa = Simulate(s, 7);
  EXPECT_LE(aa.Of(aa.slower + aa.faster), 0.05) << Describe(aa);
  EXPECT_GE(aa.Of(aa.newest_segment_found), 0.90) << aa.newest_segment_found;
  s.slowdown = 0.03;
  const Rates r = Simulate(s, 8);
  EXPECT_GE(r.Of(r.slower), 0.90) << Describe(r);
}

TEST(VerdictCalibration, FailOnSlowerOverTwentyUnchangedKeysRarelyFailsACleanRun) {
  Simulator sim(9 + kSeedOffset);
  Scenario s{Quiet()};
  s.keys = 20;
  const std::set<v1::Verdict> fail_on = {v1::VERDICT_SLOWER};
  int failed = 0;
  constexpr int kRuns = 100;
  for (int i = 0; i < kRuns; ++i) {
    const v1::JobComparison c = OneDiff(sim, s);
    EXPECT_EQ(c.family_correction(), "holm");
    failed += !ApplyFailOn(c, fail_on).ok();
  }
  std::printf("panel: --fail-on slower failed %d of %d clean runs of 20 keys\n", failed, kRuns);
  EXPECT_LE(static_cast<double>(failed) / kRuns, 0.05) << failed << " of " << kRuns;
}

}  // namespace
}  // namespace kbench::client
