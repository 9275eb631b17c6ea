// Tests of kbctl's human-readable views: job details, compare table, job list, profile tables,
// catalogue and devices, progress lines.
#include "client/format/job_view.h"

#include "client/format/catalogue_view.h"
#include "client/format/profile_view.h"
#include "client/format/progress.h"
#include "client/format/table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/fake_kbench_server.h"

namespace kbench::client {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

v1::Job CompareJob() {
  v1::Job job;
  job.set_id("job-3");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.mutable_spec()->set_kernel("softmax");
  job.mutable_spec()->add_shape(4096);
  job.mutable_spec()->add_shape(4096);
  *job.mutable_result()->add_variants() = testing::MakeVariantResult("naive", 4e-3);
  *job.mutable_result()->add_variants() = testing::MakeVariantResult("fused", 1e-3);
  return job;
}

TEST(RenderCompareTable, ShowsVariantsSideBySideWithSpeedupOverTheFirst) {
  const std::string table = RenderCompareTable(CompareJob().result());
  EXPECT_THAT(table, HasSubstr("VARIANT"));
  EXPECT_THAT(table, HasSubstr("SPEEDUP"));
  EXPECT_THAT(table, ContainsRegex("naive +4.000 ms .* 1.00x +pass"));
  EXPECT_THAT(table, ContainsRegex("fused +1.000 ms .* 4.00x +pass"));
}

TEST(RenderCompareTable, LeavesOutComputeColumnsWhenNoVariantCountsFlops) {
  const std::string table = RenderCompareTable(CompareJob().result());
  EXPECT_THAT(table, HasSubstr("BANDWIDTH"));
  EXPECT_THAT(table, Not(HasSubstr("COMPUTE")));
  v1::JobResult with_flops = CompareJob().result();
  with_flops.mutable_variants(0)->set_flops(1000);
  with_flops.mutable_variants(0)->set_flops_per_second(2e12);
  EXPECT_THAT(RenderCompareTable(with_flops), ContainsRegex("COMPUTE.*%PEAK"));
  EXPECT_THAT(RenderCompareTable(with_flops), HasSubstr("2.000 TFLOP/s"));
}

TEST(RenderCompareTable, MarksFailedCorrectness) {
  v1::JobResult result = CompareJob().result();
  v1::Correctness* c = result.mutable_variants(1)->mutable_correctness();
  c->set_passed(false);
  c->set_relative_l2_error(0.25);
  c->set_nan_count(3);
  EXPECT_THAT(RenderCompareTable(result), HasSubstr("FAIL (0.25 vs 1e-05, 3 NaN)"));
}

TEST(RenderCompareTable, LeavesOutTimedCheckAndFlagsWhenNoVariantHasThem) {
  const std::string table = RenderCompareTable(CompareJob().result());
  EXPECT_THAT(table, Not(HasSubstr("TIMED CHECK")));
  EXPECT_THAT(table, Not(HasSubstr("FLAGS")));
}

TEST(RenderCompareTable, ShowsTheTimedLaunchCheckOfEachVariant) {
  v1::JobResult result = CompareJob().result();
  v1::Correctness* timed = result.mutable_variants(0)->mutable_timed_correctness();
  timed->set_checked(true);
  timed->set_passed(false);
  timed->set_relative_l2_error(0.5);
  timed->set_tolerance(1e-5);
  const std::string table = RenderCompareTable(result);
  EXPECT_THAT(table, ContainsRegex("CORRECTNESS +TIMED CHECK +STOPPED"));
  EXPECT_THAT(table, ContainsRegex("naive .*FAIL \\(0.5 vs 1e-05\\)"));
  // The second variant's timed launch was not checked: a dash, not a pass.
  EXPECT_THAT(table, ContainsRegex("fused .*\\) +- +"));
}

TEST(RenderCompareTable, FlagsDriftHostBoundLaunchesAndBuffersThatFitL2) {
  v1::JobResult result = CompareJob().result();
  v1::VariantResult* naive = result.mutable_variants(0);
  naive->set_drift_checked(true);
  naive->set_drifted(true);
  naive->set_first_half_median_seconds(4e-3);
  naive->set_second_half_median_seconds(4.4e-3);
  v1::VariantResult* fused = result.mutable_variants(1);
  fused->set_host_bound(true);
  fused->set_rotation_fits_l2(true);
  fused->set_rotation_over_l2(1.5);
  const std::string table = RenderCompareTable(result);
  EXPECT_THAT(table, ContainsRegex("STOPPED +FLAGS"));
  EXPECT_THAT(table, ContainsRegex("naive .*drift 4.000 ?ms -> 4.400 ?ms"));
  EXPECT_THAT(table, ContainsRegex("fused .*host-bound \\(try graph mode\\); buffers fit L2 "
                                   "\\(1.5x\\)"));
}

TEST(RenderCompareTable, DoesNotFlagADriftThatWasNotFound) {
  v1::JobResult result = CompareJob().result();
  result.mutable_variants(0)->set_drift_checked(true);
  result.mutable_variants(0)->set_first_half_median_seconds(4e-3);
  EXPECT_THAT(RenderCompareTable(result), Not(HasSubstr("drift")));
}

TEST(RenderJob, DescribesOneVariantWithStatisticsThroughputAndCorrectness) {
  v1::Job job = CompareJob();
  job.mutable_result()->mutable_variants()->DeleteSubrange(1, 1);
  job.mutable_result()->mutable_environment()->set_device_id("cpu");
  job.mutable_result()->mutable_environment()->set_seed(42);
  const std::string text = RenderJob(job);
  EXPECT_THAT(text, ContainsRegex("Median: +4.000 ms"));
  EXPECT_THAT(text, HasSubstr("p10 3.960 ms  p90 4.080 ms  p99 4.400 ms"));
  EXPECT_THAT(text, HasSubstr("0.30% relative stddev (target 0.50%) over 120 samples"));
  EXPECT_THAT(text, HasSubstr("2.097 GB/s (50.0% of copy bandwidth)"));
  EXPECT_THAT(text, HasSubstr("pass (1.5e-07 <= 1e-05) over 4096 elements"));
  EXPECT_THAT(text, HasSubstr("converged"));
  EXPECT_THAT(text, ContainsRegex("Seed: +42"));
}

// Issue 29: energy per launch and the clean stamp, in the compare table and the result view.
v1::Job ConditionsJob() {
  v1::Job job = CompareJob();
  v1::VariantResult* naive = job.mutable_result()->mutable_variants(0);
  naive->mutable_energy()->set_measured(true);
  naive->mutable_energy()->set_joules_per_launch(2.5e-3);
  naive->mutable_energy()->set_average_watts(310);
  naive->mutable_energy()->set_launches(4000);
  naive->mutable_energy()->set_seconds(1.0);
  naive->mutable_clean_stamp()->set_stamped(true);
  naive->mutable_clean_stamp()->set_clean(true);
  v1::VariantResult* fused = job.mutable_result()->mutable_variants(1);
  fused->mutable_energy()->set_unsupported("unsupported on cpu");
  fused->mutable_clean_stamp()->set_stamped(true);
  fused->mutable_clean_stamp()->add_reasons(v1::STAMP_REASON_OTHER_PROCESS);
  fused->mutable_clean_stamp()->add_details("other processes had a context on the device: pid 9");
  return job;
}

TEST(RenderCompareTable, ShowsEnergyPerLaunchAndTheStamp) {
  const std::string table = RenderCompareTable(ConditionsJob().result());
  EXPECT_THAT(table, HasSubstr("J/LAUNCH"));
  EXPECT_THAT(table, ContainsRegex("naive .* 2.5 mJ .*clean"));
  EXPECT_THAT(table, ContainsRegex("fused .* - .*NOT CLEAN \\(1\\)"));
}

TEST(RenderJob, ShowsEnergyOrWhyItIsMissingAndTheStampsReasons) {
  v1::Job measured = ConditionsJob();
  measured.mutable_result()->mutable_variants()->DeleteSubrange(1, 1);
  const std::string text = RenderJob(measured);
  EXPECT_THAT(text, ContainsRegex("Energy: +2.5 mJ/launch, 310 W \\(4000 launches in 1.00 s\\)"));
  EXPECT_THAT(text, ContainsRegex("Conditions: +clean"));
  v1::Job unmeasured = ConditionsJob();
  unmeasured.mutable_result()->mutable_variants()->DeleteSubrange(0, 1);
  const std::string other = RenderJob(unmeasured);
  EXPECT_THAT(other, ContainsRegex("Energy: +unsupported on cpu"));
  EXPECT_THAT(other, HasSubstr("NOT CLEAN: other processes had a context on the device: pid 9"));
  EXPECT_THAT(other, Not(HasSubstr(" 0 J")));
}

// Issue 30: a multi-GPU job names its gang; a collective shows bus and algorithm bandwidth, the
// measured peak, the message and every rank's median.
TEST(RenderJob, ShowsACollectivesGangBandwidthsAndEveryRank) {
  v1::Job job = CompareJob();
  job.mutable_result()->mutable_variants()->DeleteSubrange(1, 1);
  job.mutable_spec()->set_device("cuda:0");
  job.mutable_spec()->add_devices("cuda:0");
  job.mutable_spec()->add_devices("cuda:1");
  v1::Collective* c = job.mutable_result()->mutable_variants(0)->mutable_collective();
  c->set_world_size(2);
  c->add_devices("cuda:0");
  c->add_devices("cuda:1");
  c->set_message_bytes(int64_t{1} << 30);
  c->set_algorithm_bytes_per_second(328e9);
  c->set_bus_bytes_per_second(328e9);
  c->set_bus_factor(1);
  c->set_peak_bus_bytes_per_second(400e9);
  c->add_rank_median_seconds(3.2e-3);
  c->add_rank_median_seconds(3.3e-3);
  c->set_slowest_rank(1);
  c->set_ranks_checked(2);
  const std::string text = RenderJob(job);
  EXPECT_THAT(text, ContainsRegex("Devices: +cuda:0, cuda:1 \\(held together, rank order\\)"));
  EXPECT_THAT(text,
              ContainsRegex("Bus bandwidth: +328(\\.0)? GB/s \\(82.0% of the 400(\\.0)? GB/s"));
  EXPECT_THAT(text, HasSubstr("bus factor 1"));
  EXPECT_THAT(text,
              ContainsRegex("Message: +1(\\.0+)? GiB per rank, 2 ranks \\(cuda:0, cuda:1\\)"));
  EXPECT_THAT(text, HasSubstr("0: 3.200 ms, 1: 3.300 ms; slowest rank 1; 2 of 2 checked"));
  EXPECT_THAT(text, Not(HasSubstr("of copy bandwidth")));
}

TEST(RenderCompareTable, LeavesOutEnergyAndConditionsForOlderResults) {
  const std::string table = RenderCompareTable(CompareJob().result());
  EXPECT_THAT(table, Not(HasSubstr("J/LAUNCH")));
  EXPECT_THAT(table, Not(HasSubstr("CONDITIONS")));
}

TEST(RenderJob, ShowsTheCheckSeedsAndThePhysicalFloor) {
  v1::Job job = CompareJob();
  job.mutable_result()->mutable_variants()->DeleteSubrange(1, 1);
  v1::Environment* env = job.mutable_result()->mutable_environment();
  env->set_seed(42);
  env->set_check_seed(1001);
  env->set_timed_check_seed(2003);
  v1::PhysicalFloor* floor = job.mutable_result()->mutable_variants(0)->mutable_floor();
  floor->set_judged(true);
  floor->set_detail("median 4000.000 us reaches 75% of the physical floor 40.000 us (...)");
  const std::string text = RenderJob(job);
  EXPECT_THAT(text, ContainsRegex("Seed: +42 \\(timed inputs\\); checked on 1001 and 2003"));
  EXPECT_THAT(text, ContainsRegex("Floor: +median 4000.000 us reaches 75% of the physical floor"));
}

// JobSpec.placements: each placement's median beside the pooled one, and their spread.
v1::Job PlacedJob() {
  v1::Job job = CompareJob();
  job.mutable_result()->mutable_variants()->DeleteSubrange(1, 1);
  v1::VariantResult* v = job.mutable_result()->mutable_variants(0);
  for (const auto& [gap, median] : {std::pair{0, 4e-3}, {1 << 20, 4.6e-3}, {6144, 4.2e-3}}) {
    v1::PlacementResult* p = v->add_placements();
    p->set_tensor_gap_bytes(gap);
    p->set_median_seconds(median);
    p->set_samples(40);
  }
  v->set_placement_spread(0.6e-3 / 4.2e-3);
  return job;
}

TEST(RenderJob, ShowsEachPlacementsMedianAndTheirSpread) {
  EXPECT_THAT(RenderJob(PlacedJob()),
              ContainsRegex("Placements: +3, medians spread 14.3%; the median above pools "
                            "them: 4.000 ms \\(gap 0 B\\), 4.600 ms \\(gap 1.0 MiB\\), 4.200 ms "
                            "\\(gap 6.0 KiB\\)"));
}

TEST(RenderCompareTable, FlagsThePlacementSpread) {
  EXPECT_THAT(RenderCompareTable(PlacedJob().result()),
              ContainsRegex("naive .*placement spread 14.3% over 3"));
}

TEST(RenderJob, ShowsErrorCodeAndArtifacts) {
  v1::Job job;
  job.set_id("job-9");
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error("executor for cuda:0 died (signal 11)");
  job.set_error_code("INTERNAL");
  v1::ArtifactInfo* a = job.add_artifacts();
  a->set_name("samples.csv");
  a->set_size_bytes(2048);
  const std::string text = RenderJob(job);
  EXPECT_THAT(text, ContainsRegex("State: +failed"));
  EXPECT_THAT(text, HasSubstr("INTERNAL: executor for cuda:0 died (signal 11)"));
  EXPECT_THAT(text, HasSubstr("samples.csv (2.0 KiB)"));
}

TEST(RenderJob, ShowsTheCodeOfErrorStatus) {
  v1::Job job;
  job.set_id("job-9");
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error("no sample within 60 s");
  job.set_error_status(v1::STATUS_CODE_DEADLINE_EXCEEDED);
  EXPECT_THAT(RenderJob(job), HasSubstr("DEADLINE_EXCEEDED: no sample within 60 s"));
}

TEST(JobStatusCode, ReadsErrorStatus) {
  v1::Job job;
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error_status(v1::STATUS_CODE_DEADLINE_EXCEEDED);
  EXPECT_EQ(JobStatusCode(job), absl::StatusCode::kDeadlineExceeded);
}

TEST(JobStatusCode, ReadsTheNameFromAServerThatSetsOnlyTheName) {
  v1::Job job;
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error_code("PERMISSION_DENIED");
  EXPECT_EQ(JobStatusCode(job), absl::StatusCode::kPermissionDenied);
}

TEST(JobStatusCode, IsUnknownForAFailedJobWithoutACodeAndOkForOneThatDidNotFail) {
  v1::Job job;
  job.set_state(v1::JOB_STATE_FAILED);
  job.set_error_code("NO_SUCH_CODE");
  EXPECT_EQ(JobStatusCode(job), absl::StatusCode::kUnknown);
  job.clear_error_code();
  EXPECT_EQ(JobStatusCode(job), absl::StatusCode::kUnknown);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(JobStatusCode(job), absl::StatusCode::kOk);
}

TEST(RenderJob, NamesACompileJobsKernelAndLeavesOutTheSamplingLines) {
  v1::Job job;
  job.set_id("j-c");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.mutable_spec()->set_kind(v1::JOB_KIND_COMPILE);
  job.mutable_spec()->set_kernel("softmax");
  v1::UserKernel* k = job.mutable_spec()->add_user_kernels();
  k->set_entry("softmax_kernel");
  k->set_file_name("my.cu");
  const std::string text = RenderJob(job);
  EXPECT_THAT(text, ContainsRegex("Kernel: +softmax \\[softmax_kernel from my.cu\\]"));
  EXPECT_THAT(text, Not(HasSubstr("Stopping")));
  EXPECT_THAT(text, Not(HasSubstr("Mode")));
}

TEST(RenderJobsTable, ListsOneJobPerLineWithAgeAndResult) {
  v1::Job job = CompareJob();
  job.mutable_create_time()->set_seconds(1000);
  const std::string table = RenderJobsTable({job}, absl::FromUnixSeconds(1000 + 125));
  EXPECT_THAT(table, ContainsRegex("^ID +STATE +KERNEL"));
  EXPECT_THAT(table, ContainsRegex("job-3 +succeeded .* 4096x4096 .*2m05s +4.000 ms "
                                   "\\(\\+1 variant\\)"));
  // -o wide adds the kind and the dtype.
  Table::SetStyle({.wide = true});
  const std::string wide = RenderJobsTable({job}, absl::FromUnixSeconds(1000 + 125));
  Table::SetStyle({});
  EXPECT_THAT(wide, ContainsRegex("^ID +STATE +KIND"));
  EXPECT_THAT(wide, ContainsRegex("job-3 +succeeded .* 4096x4096 +f32 .*2m05s"));
}

TEST(RenderProfile, SortsKernelsByTotalTimeAndShowsCategories) {
  v1::ProfileResult p;
  v1::ProfileKernelRow* small = p.add_kernels();
  small->set_name("exp_kernel");
  small->set_category("pointwise");
  small->set_calls(10);
  small->set_total_seconds(1e-4);
  v1::ProfileKernelRow* big = p.add_kernels();
  big->set_name("row_max_kernel");
  big->set_category("reduction");
  big->set_calls(10);
  big->set_total_seconds(3e-4);
  big->set_registers_per_thread(32);
  big->set_theoretical_occupancy(0.75);
  v1::ProfileCategoryRow* cat = p.add_categories();
  cat->set_category("reduction");
  cat->set_total_seconds(3e-4);
  cat->set_percent_of_gpu_time(75);
  cat->set_kernels(1);
  p.set_gpu_busy_fraction(0.9);
  p.set_wall_seconds(1e-3);
  const std::string text = RenderProfile(p);
  EXPECT_LT(text.find("row_max_kernel"), text.find("exp_kernel"));
  EXPECT_THAT(text, ContainsRegex("reduction +1 +300.0 us +75.0%"));
  EXPECT_THAT(text, HasSubstr("GPU busy: 90.0% of 1.000 ms wall"));
  EXPECT_THAT(text, ContainsRegex("row_max_kernel .* 32 .* 75.0%"));
}

TEST(RenderKernelsTable, ListsOperationsVariantsDimsAndDtypes) {
  testing::FakeKbenchServer server;
  const std::string table = RenderKernelsTable(server.kernels());
  EXPECT_THAT(table, ContainsRegex("\nsoftmax +host_rowwise,naive,fused,warp_per_row,online "
                                   "+rows x cols +4096x4096 +f32,f16,bf16\n"));
}

TEST(RenderKernel, DescribesEachVariant) {
  testing::FakeKbenchServer server;
  const v1::KernelInfo& matmul = server.kernels().kernels(6);
  ASSERT_EQ(matmul.name(), "matmul");
  const std::string text = RenderKernel(matmul);
  EXPECT_THAT(text, ContainsRegex("Dims: +m x n x k \\(default 1024x1024x1024\\)"));
  EXPECT_THAT(text, ContainsRegex("\nhost_naive +cpu +f32 +i-k-j loops"));
  EXPECT_THAT(text, ContainsRegex("\ntensorcore +cuda +bf16,f16 +wgmma tensor cores"));
}

TEST(RenderDevicesTable, ShowsThreadsForCpuAndMeasuredBandwidth) {
  testing::FakeKbenchServer server;
  const std::string table = RenderDevicesTable(server.devices());
  EXPECT_THAT(table, ContainsRegex("cpu +cpu +Fake CPU +ready .* 2 threads .* 12.50 GB/s"));
}

TEST(DescribeProgress, ShowsPhaseSamplesNoiseAndElapsed) {
  v1::Job job;
  job.set_id("job-1");
  job.set_state(v1::JOB_STATE_RUNNING);
  job.set_device("cuda:0");
  job.mutable_spec()->mutable_stopping()->set_max_noise(0.01);
  job.mutable_progress()->set_phase("measure");
  job.mutable_progress()->set_variant("fused");
  job.mutable_progress()->set_samples(312);
  job.mutable_progress()->set_noise(0.0041);
  job.mutable_progress()->set_elapsed_seconds(3.21);
  EXPECT_EQ(DescribeProgress(job),
            "job job-1 running on cuda:0: measuring fused: 312 samples, spread 0.41% "
            "(stops at a median within 1.00%, or a spread within it), 3.2s");
}

TEST(ProgressLine, RedrawsOneLineOnATerminalAndClearsIt) {
  std::ostringstream err;
  v1::Job job;
  job.set_id("j");
  job.set_state(v1::JOB_STATE_QUEUED);
  {
    ProgressLine line(&err, /*tty=*/true);
    line.Update(job);
    job.set_state(v1::JOB_STATE_RUNNING);
    line.Update(job);
  }
  EXPECT_EQ(err.str(), "\r\033[Kjob j queued\r\033[Kjob j running\r\033[K");
}

TEST(ProgressLine, CutsTheRedrawnLineToTheTerminalWidth) {
  std::ostringstream err;
  v1::Job job;
  job.set_id("job-with-a-long-id");
  job.set_state(v1::JOB_STATE_QUEUED);
  ProgressLine line(&err, /*tty=*/true, /*columns=*/12);
  line.Update(job);
  EXPECT_EQ(err.str(), "\r\033[Kjob job-...");  // 11 columns: one spare.
}

TEST(ProgressLine, PrintsPlainLinesOnlyForNewsWhenNotATerminal) {
  std::ostringstream err;
  v1::Job job;
  job.set_id("j");
  job.set_state(v1::JOB_STATE_RUNNING);
  job.mutable_progress()->set_phase("measure");
  ProgressLine line(&err, /*tty=*/false);
  for (double t : {0.1, 0.5, 0.9, 1.2, 1.3}) {  // Within one phase: one line per second.
    job.mutable_progress()->set_elapsed_seconds(t);
    line.Update(job);
  }
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  line.Update(job);
  EXPECT_EQ(err.str(),
            "job j running: measuring, 100ms\n"
            "job j running: measuring, 1.2s\n"
            "job j succeeded\n");
}

}  // namespace
}  // namespace kbench::client
