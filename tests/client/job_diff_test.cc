// kbctl diff's comparison of two jobs (client/verdict/job_diff.h): what it says differs between
// their conditions beside the verdicts, the job's own interval over placements, the family.
#include "client/verdict/job_diff.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::Contains;
using ::testing::Not;

v1::Job Benchmark(const std::string& id, int placements) {
  v1::Job job;
  job.set_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.mutable_spec()->set_kind(v1::JOB_KIND_BENCHMARK);
  job.mutable_spec()->set_kernel("softmax");
  job.mutable_spec()->set_placements(placements);
  v1::VariantResult* v = job.mutable_result()->add_variants();
  v->set_variant("fused");
  for (int i = 0; i < 50; ++i) v->add_sample_seconds(1e-3 * (1 + 1e-4 * (i % 7)));
  v->mutable_stats()->set_median_seconds(1e-3);
  return job;
}

TEST(CompareJobs, SaysWhenThePlacementsDiffer) {
  absl::StatusOr<v1::JobComparison> c = CompareJobs(Benchmark("a", 0), Benchmark("b", 16), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->key_differences(), Contains("placements 1 vs 16"));
  // 0 and 1 both mean one placement.
  c = CompareJobs(Benchmark("a", 0), Benchmark("b", 1), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(c->key_differences(), Not(Contains(::testing::StartsWith("placements"))));
}

// A job of `placements` placements whose medians are 1 ms +- `spread`, pooled median 1 ms x
// `scale`, with a pooled interval far narrower than the placements' spread.
v1::Job Placed(const std::string& id, int placements, double spread, double scale) {
  v1::Job job = Benchmark(id, placements);
  v1::VariantResult* v = job.mutable_result()->mutable_variants(0);
  v->mutable_stats()->set_median_seconds(1e-3 * scale);
  v->mutable_stats()->set_median_ci_low_seconds(0.9999e-3 * scale);
  v->mutable_stats()->set_median_ci_high_seconds(1.0001e-3 * scale);
  for (int i = 0; i < placements; ++i) {
    v->add_placements()->set_median_seconds(1e-3 * scale * (1 + spread * (i % 2 ? 1 : -1)));
  }
  return job;
}

TEST(CompareJobs, AJobOfSeveralPlacementsIsAsUncertainAsItsPlacementMediansSay) {
  DiffOptions options;
  options.min_effect_percent = 1;
  options.history_noise["fused"] = analysis::BetweenJobNoise{20, 0, 0.001};
  // 16 placements 5 % apart: a 2 % change is within what another draw of placements gives.
  absl::StatusOr<v1::JobComparison> c =
      CompareJobs(Placed("a", 16, 0.05, 1), Placed("b", 16, 0.05, 1.02), options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->variants(0).interval_over(), "placement medians");
  EXPECT_EQ(c->variants(0).verdict(), v1::VERDICT_UNSURE) << c->DebugString();
  // One placement: its own (narrow) interval, and 2 % stands out of 0.1 % between jobs.
  c = CompareJobs(Placed("a", 1, 0, 1), Placed("b", 1, 0, 1.02), options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->variants(0).interval_over(), "samples");
  EXPECT_EQ(c->variants(0).verdict(), v1::VERDICT_SLOWER) << c->DebugString();
}

TEST(CompareJobs, AFreshKeyIsUnsureAndSaysWhatToRun) {
  absl::StatusOr<v1::JobComparison> c = CompareJobs(Benchmark("a", 0), Benchmark("b", 0), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::VariantComparison& v = c->variants(0);
  EXPECT_EQ(v.verdict(), v1::VERDICT_UNSURE);
  EXPECT_EQ(v.test(), "fresh_key_bound");
  EXPECT_EQ(v.min_effect_percent(), 3);
  EXPECT_THAT(v.reason(), ::testing::HasSubstr("kbctl compare --baseline a --variants fused"));
}

TEST(CompareJobs, CorrectsTheVerdictsOfSeveralVariantsAsOneFamily) {
  // Two variants, each changed by as much as stands out alone at p ~ 0.03: Holm doubles the
  // smaller p, so neither stays SLOWER.
  v1::Job a = Benchmark("a", 0), b = Benchmark("b", 0);
  *a.mutable_result()->add_variants() = a.result().variants(0);
  a.mutable_result()->mutable_variants(1)->set_variant("naive");
  *b.mutable_result()->add_variants() = b.result().variants(0);
  b.mutable_result()->mutable_variants(1)->set_variant("naive");
  for (int i = 0; i < 2; ++i)
    b.mutable_result()->mutable_variants(i)->mutable_stats()->set_median_seconds(1.083e-3);
  DiffOptions options;
  options.min_effect_percent = 1;
  options.history_noise["fused"] = analysis::BetweenJobNoise{20, 0, 0.01};
  options.history_noise["naive"] = analysis::BetweenJobNoise{20, 0, 0.01};
  absl::StatusOr<v1::JobComparison> c = CompareJobs(a, b, options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->family_correction(), "holm");
  EXPECT_EQ(c->family_size(), 2);
  EXPECT_NEAR(c->expected_false_verdicts(), 0.05, 1e-12);
  for (const v1::VariantComparison& v : c->variants()) {
    EXPECT_LT(v.p_value(), 0.05) << v.DebugString();
    EXPECT_GE(v.adjusted_p_value(), 0.05) << v.DebugString();
    EXPECT_EQ(v.uncorrected_verdict(), v1::VERDICT_SLOWER) << v.DebugString();
    EXPECT_EQ(v.verdict(), v1::VERDICT_UNSURE) << v.DebugString();
    EXPECT_THAT(v.reason(), ::testing::HasSubstr("not among 2 keys"));
  }
}

}  // namespace
}  // namespace kbench::client

namespace kbench::client {
namespace {

// Issue 29: energy beside time.
v1::Job WithEnergy(const std::string& id, double median_seconds, double joules_per_launch) {
  v1::Job job = Benchmark(id, 1);
  v1::VariantResult* v = job.mutable_result()->mutable_variants(0);
  v->mutable_stats()->set_median_seconds(median_seconds);
  v->mutable_energy()->set_measured(true);
  v->mutable_energy()->set_joules_per_launch(joules_per_launch);
  return job;
}

TEST(CompareJobs, SaysWhenTheCandidateIsFasterButUsesMoreEnergy) {
  absl::StatusOr<v1::JobComparison> c =
      CompareJobs(WithEnergy("a", 2e-3, 1e-3), WithEnergy("b", 1e-3, 1.5e-3), {});
  ASSERT_TRUE(c.ok()) << c.status();
  const v1::VariantComparison& v = c->variants(0);
  EXPECT_DOUBLE_EQ(v.baseline_joules_per_launch(), 1e-3);
  EXPECT_DOUBLE_EQ(v.candidate_joules_per_launch(), 1.5e-3);
  EXPECT_THAT(v.energy_note(), ::testing::StartsWith("faster by 50.0% but uses 50.0% more energy"));
}

TEST(CompareJobs, SaysNothingOfEnergyWhenBothImproveOrOneIsUnmeasured) {
  absl::StatusOr<v1::JobComparison> c =
      CompareJobs(WithEnergy("a", 2e-3, 2e-3), WithEnergy("b", 1e-3, 1e-3), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->variants(0).energy_note(), "");
  c = CompareJobs(Benchmark("a", 1), WithEnergy("b", 1e-3, 5e-3), {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->variants(0).has_baseline_joules_per_launch());
  EXPECT_EQ(c->variants(0).energy_note(), "");
}

}  // namespace
}  // namespace kbench::client
