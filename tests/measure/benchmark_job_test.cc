// RunBenchmarkJob's pipeline on a scripted device: every variant's timed sample is checked
// against the reference, a run that keeps nothing fails, and the result says what its
// statistics are over, which criterion stopped it, whether it drifted and whether hot mode was
// host-bound (issue 15). No GPU: the device's samples are injected.
#include "server/executor/benchmark_job.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "kernels/catalogue.h"
#include "kernels/random.h"

namespace kbench::executor {
namespace {

// What the scripted device does.
struct Script {
  // The i-th TakeSample (0-based, warm-up excluded).
  std::function<measure::Sample(int i)> sample = [](int) {
    measure::Sample s;
    s.seconds = 0.01;
    return s;
  };
  // The timed sample's outputs differ from the checked run's: a kernel that computes only
  // when it is checked.
  bool timed_output_wrong = false;
  int begin_sampling = 0, end_sampling = 0;
};

class ScriptedVariant : public PreparedVariant {
 public:
  ScriptedVariant(Script* script, const kernels::Problem& problem, uint64_t seed)
      : script_(script) {
    const kernels::Operation* op = kernels::FindOperation(problem.op);
    const kernels::Layout layout = op->layout(problem);
    for (size_t t = 0; t < layout.inputs.size(); ++t) {
      std::vector<double>& in = inputs_.emplace_back(layout.inputs[t].elements);
      for (size_t i = 0; i < in.size(); ++i) {
        in[i] = kernels::UniformAt(seed, static_cast<uint32_t>(t), i,
                                   static_cast<float>(layout.input_scale));
      }
    }
    outputs_.resize(layout.outputs.size());
    for (size_t o = 0; o < layout.outputs.size(); ++o) {
      outputs_[o].assign(layout.outputs[o].elements, 0);
    }
    op->reference(problem, inputs_, &outputs_);
  }

  absl::StatusOr<kernels::HostTensors> Inputs() override { return inputs_; }
  absl::StatusOr<CheckedOutput> RunChecked() override { return CheckedOutput{outputs_, 0}; }
  absl::Status Warmup() override { return absl::OkStatus(); }
  absl::StatusOr<measure::Sample> TakeSample() override { return script_->sample(samples_++); }
  absl::StatusOr<TimedCheck> TakeCheckedSample() override {
    TimedCheck check;
    check.sample = script_->sample(samples_++);
    check.output.outputs = outputs_;
    if (script_->timed_output_wrong) {
      for (double& x : check.output.outputs[0]) x = 0;
    }
    return check;
  }
  absl::Status RunOnce() override { return absl::OkStatus(); }

 private:
  Script* script_;
  int samples_ = 0;
  kernels::HostTensors inputs_, outputs_;
};

class ScriptedRunner : public DeviceRunner {
 public:
  explicit ScriptedRunner(Script* script) : script_(script) { info_.set_id("fake"); }
  const v1::DeviceInfo& info() const override { return info_; }
  v1::MeasureMode default_mode() const override { return v1::MEASURE_MODE_HOT; }
  double PeakFlops(kernels::DType) const override { return 0; }
  absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(const kernels::Problem& problem,
                                                           uint64_t seed,
                                                           v1::MeasureMode) override {
    return std::make_unique<ScriptedVariant>(script_, problem, seed);
  }
  void BeginSampling() override { ++script_->begin_sampling; }
  void EndSampling(v1::Environment*) override { ++script_->end_sampling; }

 private:
  Script* script_;
  v1::DeviceInfo info_;
};

class BenchmarkJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kbench_benchmark_job_XXXXXX";
    dir_ = mkdtemp(tmpl);
    job_.set_job_id("job-7");
    job_.set_artifact_dir(dir_);
    v1::JobSpec* spec = job_.mutable_spec();
    spec->set_kind(v1::JOB_KIND_BENCHMARK);
    spec->set_kernel("softmax");
    spec->add_variants("naive");
    spec->add_shape(4);
    spec->add_shape(8);
    spec->set_dtype(v1::DTYPE_F32);
    spec->set_seed(7);
    context_.job = &job_;
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  absl::StatusOr<JobRun> Run() { return RunBenchmarkJob(runner_, context_); }

  Script script_;
  ScriptedRunner runner_{&script_};
  internal::v1::RunJob job_;
  JobContext context_;
  std::string dir_;
};

TEST_F(BenchmarkJobTest, FailsAVariantWhoseTimedLaunchDoesNotMatchTheReference) {
  script_.timed_output_wrong = true;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "softmax/naive's timed launch"))
      << run.status();
}

TEST_F(BenchmarkJobTest, RecordsTheTimedCheckOfEveryVariant) {
  job_.mutable_spec()->add_variants("fused");
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->result.variants_size(), 2);
  for (const v1::VariantResult& v : run->result.variants()) {
    EXPECT_TRUE(v.timed_correctness().checked()) << v.variant();
    EXPECT_TRUE(v.timed_correctness().passed()) << v.variant();
    EXPECT_EQ(v.timed_correctness().elements_checked(), 32) << v.variant();
  }
}

TEST_F(BenchmarkJobTest, ARunThatKeepsNoSampleFailsInsteadOfPublishingZeros) {
  script_.sample = [](int) {
    measure::Sample s;
    s.seconds = 0.01;
    s.discard = true;
    s.sm_clock_mhz = 700;
    s.clock_floor_mhz = 1485;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "700 MHz")) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "1485 MHz")) << run.status();
  // The device still hears that sampling ended (it records the floor and the throttling).
  EXPECT_EQ(script_.begin_sampling, 1);
  EXPECT_EQ(script_.end_sampling, 1);
}

TEST_F(BenchmarkJobTest, SaysStatisticsAreBatchMeansAndFlagsAHostBoundHotRun) {
  // Batches of 100 launches; the host took 90% of the batch's device time to enqueue it.
  script_.sample = [](int) {
    measure::Sample s;
    s.seconds = 0.01;
    s.launches = 100;
    s.host_enqueue_seconds = 0.009;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VariantResult& v = run->result.variants(0);
  EXPECT_EQ(v.stats().unit(), v1::HARNESS_STATISTIC_UNIT_BATCH_MEAN);
  EXPECT_EQ(v.stats().launches_per_sample(), 100);
  EXPECT_DOUBLE_EQ(v.host_enqueue_seconds(), 0.009);
  EXPECT_TRUE(v.host_bound());
  EXPECT_EQ(v.stop_criterion(), v1::HARNESS_STOP_CRITERION_MEDIAN_PRECISION);
  EXPECT_TRUE(v.converged());
  EXPECT_EQ(v.median_precision(), 0);  // identical samples
}

TEST_F(BenchmarkJobTest, DoesNotFlagAHotRunWhoseHostKeptAhead) {
  script_.sample = [](int) {
    measure::Sample s;
    s.seconds = 0.01;
    s.launches = 100;
    s.host_enqueue_seconds = 0.002;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->result.variants(0).host_bound());
}

TEST_F(BenchmarkJobTest, FlagsDriftBetweenTheHalvesOfTheRun) {
  // 40 samples, the second half 10% slower: a 20% target lets it converge at 40.
  job_.mutable_spec()->mutable_stopping()->set_min_samples(40);
  job_.mutable_spec()->mutable_stopping()->set_max_noise(0.2);
  script_.sample = [](int i) {
    measure::Sample s;
    s.seconds = i < 20 ? 0.02 : 0.022;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VariantResult& v = run->result.variants(0);
  EXPECT_EQ(v.stats().samples(), 40);
  EXPECT_TRUE(v.drift_checked());
  EXPECT_TRUE(v.drifted());
  EXPECT_DOUBLE_EQ(v.first_half_median_seconds(), 0.02);
  EXPECT_DOUBLE_EQ(v.second_half_median_seconds(), 0.022);
}

}  // namespace
}  // namespace kbench::executor
