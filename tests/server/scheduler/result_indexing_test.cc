// A succeeded job's result-index rows (server/scheduler/result_indexing.h): the key fields each
// row carries, so that history and verdicts never mix results that are not comparable.
#include "server/scheduler/result_indexing.h"

#include <gtest/gtest.h>

namespace kbench::scheduler {
namespace {

struct Job {
  store::JobRecord record;
  v1::JobSpec spec;
  v1::JobResult result;
};

Job SucceededBenchmark() {
  Job job;
  job.record.id = "j-1";
  job.record.device = "cuda:0";
  job.record.kind = JobKind::kBenchmark;
  job.spec.set_kernel("softmax");
  job.spec.add_shape(4096);
  job.spec.add_shape(4096);
  job.spec.set_dtype(v1::DTYPE_F32);
  for (const char* name : {"fused", "@mine"}) {
    v1::VariantResult* v = job.result.add_variants();
    v->set_variant(name);
    v->set_mode(v1::MEASURE_MODE_COLD);
    v->mutable_stats()->set_samples(100);
    v->mutable_stats()->set_median_seconds(50e-6);
  }
  job.result.mutable_variants(1)->mutable_user_module()->set_module_sha256(std::string(64, 'a'));
  return job;
}

TEST(IndexedResultsOf, KeysAUserVariantByItsModuleAndACatalogueOneByName) {
  const Job job = SucceededBenchmark();
  const std::vector<store::IndexedResult> rows =
      IndexedResultsOf(job.record, job.spec, job.result, 1);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].variant, "fused");
  EXPECT_EQ(rows[0].module_sha256, "");
  EXPECT_EQ(rows[1].variant, "@mine");
  EXPECT_EQ(rows[1].module_sha256, std::string(64, 'a'));
  EXPECT_EQ(rows[1].mode, "cold");
  EXPECT_EQ(rows[1].shape, "4096x4096");
}

// Issue 30: a multi-GPU job's results are keyed by the model and the gang's size.
TEST(IndexedResultsOf, KeysAMultiGpuResultByTheModelAndTheGangsSize) {
  Job job = SucceededBenchmark();
  job.result.mutable_environment()->set_device_name("NVIDIA H200");
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].device_model, "NVIDIA H200");
  job.spec.add_devices("cuda:0");
  job.spec.add_devices("cuda:1");
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].device_model,
            "NVIDIA H200 x2");
}

TEST(IndexedResultsOf, KeysTheBufferPlacementsOneWhenTheSpecLeavesThemUnset) {
  Job job = SucceededBenchmark();
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].placements, 1);
  job.spec.set_placements(16);
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].placements, 16);
}

// Issue 26: a verdict reads the between-job noise only from results of its baseline's kind of
// stopping rule, so the index records whether the job set one of its own.
TEST(IndexedResultsOf, RecordsWhetherTheJobSetAStoppingRuleOfItsOwn) {
  Job job = SucceededBenchmark();
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].custom_stopping);
  job.spec.mutable_stopping();  // present but empty: the default rule
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].custom_stopping);
  job.spec.mutable_stopping()->set_min_samples(20);
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].custom_stopping);
}

// Issue 29: a result is clean unless its stamp took readings and found contamination (no stamp:
// a device that takes no readings, or a result from before the stamp); its energy is indexed
// only where it was measured.
TEST(IndexedResultsOf, RecordsTheCleanStampAndTheMeasuredEnergy) {
  Job job = SucceededBenchmark();
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].clean);
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].joules_per_launch, 0);
  v1::VariantResult* v = job.result.mutable_variants(0);
  v->mutable_clean_stamp()->set_stamped(true);
  v->mutable_clean_stamp()->set_clean(true);
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].clean);
  v->mutable_clean_stamp()->set_clean(false);
  v->mutable_clean_stamp()->add_reasons(v1::STAMP_REASON_CPU_SHARED);
  // A shared host CPU alone stays in history (the stamp still shows it).
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].clean);
  v->mutable_clean_stamp()->add_reasons(v1::STAMP_REASON_OTHER_PROCESS);
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].clean);
  v->mutable_energy()->set_joules_per_launch(2e-3);  // not measured: not indexed
  EXPECT_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].joules_per_launch, 0);
  v->mutable_energy()->set_measured(true);
  EXPECT_DOUBLE_EQ(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].joules_per_launch,
                   2e-3);
}

// Issue 23: a ranked run counts when its pooled median is precise and it did not drift, even
// where one placement's stopping rule timed out (as eight placements of a 50 us kernel do on an
// H100); a confirming re-run is marked.
TEST(IndexedResultsOf, MarksARankedRunThatCountsAndItsConfirmation) {
  Job job = SucceededBenchmark();
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);  // not ranked
  job.spec.set_ranked(true);
  v1::VariantResult* v = job.result.mutable_variants(0);
  v->set_converged(false);
  v->set_median_precision(0.0004);  // a placement timed out; the pooled median is within 0.04%
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  v->set_median_precision(0);  // the interval is one timer step: seen on an H100 at e9489ac
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  v->set_median_precision(0.02);
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  v->set_converged(true);
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  // A drift the check flags but smaller than the 0.5% target (40,000 samples flag 0.1%) counts;
  // a larger one does not.
  v->set_drifted(true);
  v->set_first_half_median_seconds(50.00e-6);
  v->set_second_half_median_seconds(50.05e-6);
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  v->set_second_half_median_seconds(51e-6);
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].ranked);
  v->set_drifted(false);
  EXPECT_FALSE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].confirmation);
  job.spec.set_confirms_job("j-0");
  EXPECT_TRUE(IndexedResultsOf(job.record, job.spec, job.result, 1)[0].confirmation);
}

}  // namespace
}  // namespace kbench::scheduler
