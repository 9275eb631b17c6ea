// What `kbctl diff --explain` submits for one side, and how it prints an explanation.
#include "client/explain/profile_side.h"

#include "client/explain/explanation_view.h"
#include "gtest/gtest.h"

namespace kbench::client::explain {
namespace {

v1::Job RankedUserKernelJob() {
  v1::Job job;
  job.set_id("j-1");
  job.set_device("cuda:1");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_kind(v1::JOB_KIND_BENCHMARK);
  spec->set_kernel("add");
  spec->add_variants("naive");
  spec->add_variants("@mine");
  spec->add_shape(1 << 20);
  spec->set_dtype(v1::DTYPE_F32);
  spec->set_device("cuda:any");
  spec->set_seed(7);
  spec->set_ranked(true);
  spec->set_placements(8);
  spec->set_sanitize(true);
  spec->mutable_stopping()->set_max_noise(0.001);
  (*spec->mutable_params())["alpha"] = 2;
  spec->add_user_kernels()->set_name("@other");
  spec->add_user_kernels()->set_name("@mine");
  return job;
}

TEST(ProfileSpecFor, ProfilesOneVariantOfTheSameProblemWithoutTheTimingProtocol) {
  const v1::JobSpec spec = ProfileSpecFor(RankedUserKernelJob(), "@mine", /*ncu=*/true);
  EXPECT_EQ(spec.kind(), v1::JOB_KIND_PROFILE);
  EXPECT_EQ(spec.kernel(), "add");
  ASSERT_EQ(spec.variants_size(), 1);
  EXPECT_EQ(spec.variants(0), "@mine");
  ASSERT_EQ(spec.shape_size(), 1);
  EXPECT_EQ(spec.shape(0), 1 << 20);
  EXPECT_EQ(spec.dtype(), v1::DTYPE_F32);
  EXPECT_EQ(spec.device(), "cuda:1");  // where the benchmark ran, not cuda:any
  EXPECT_EQ(spec.seed(), 7u);
  EXPECT_EQ(spec.params().at("alpha"), 2);
  EXPECT_TRUE(spec.profile().ncu());
  ASSERT_EQ(spec.user_kernels_size(), 1);
  EXPECT_EQ(spec.user_kernels(0).name(), "@mine");
  EXPECT_FALSE(spec.ranked());
  EXPECT_EQ(spec.placements(), 0);
  EXPECT_FALSE(spec.sanitize());
  EXPECT_FALSE(spec.has_stopping());
}

TEST(ProfileSpecFor, TakesNoUserKernelForACatalogueVariant) {
  const v1::JobSpec spec = ProfileSpecFor(RankedUserKernelJob(), "naive", /*ncu=*/false);
  EXPECT_EQ(spec.user_kernels_size(), 0);
  EXPECT_FALSE(spec.profile().ncu());
}

TEST(RanOnCuda, IsFalseForTheCpuDevice) {
  v1::Job job;
  job.set_device("cpu");
  EXPECT_FALSE(RanOnCuda(job));
  job.set_device("cuda:0");
  EXPECT_TRUE(RanOnCuda(job));
}

TEST(RenderExplanations, ListsFindingsThenWhatWasNotMeasured) {
  v1::ExplainedComparison explained;
  v1::VariantExplanation* e = explained.add_explanations();
  e->set_baseline_variant("@user");
  e->set_candidate_variant("@user");
  e->set_verdict(v1::VERDICT_SLOWER);
  e->set_change_percent(25.3);
  e->set_baseline_profile_job_id("j-12");
  e->set_candidate_profile_job_id("j-13");
  e->add_findings("spills 0 → 24 B in add_blocked");
  e->add_not_measured("SASS of the baseline: sass.txt is readable only by the code's owner");
  EXPECT_EQ(RenderExplanations(explained),
            "\nWhy @user is SLOWER (+25 %): profiles j-12 and j-13\n"
            "  spills 0 → 24 B in add_blocked\n"
            "  Not measured: SASS of the baseline: sass.txt is readable only by the code's "
            "owner\n");
}

TEST(RenderExplanations, SaysWhenNothingWasInScope) {
  EXPECT_EQ(RenderExplanations(v1::ExplainedComparison()),
            "\nNothing to explain: no variant is FASTER or SLOWER (--explain-all explains every "
            "one)\n");
}

}  // namespace
}  // namespace kbench::client::explain
