// kbctl diff's comparison of two jobs (client/verdict/job_diff.h): what it says differs between
// their conditions beside the verdicts.
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

}  // namespace
}  // namespace kbench::client
