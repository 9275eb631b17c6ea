// RunBenchmarkJob's pipeline on a scripted device: every variant's timed sample is checked
// against the reference, a run that keeps nothing fails, and the result says what its
// statistics are over, which criterion stopped it, whether it drifted and whether hot mode was
// host-bound (issue 15). No GPU: the device's samples are injected.
#include "server/executor/benchmark_job.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "kernels/catalogue.h"
#include "kernels/output_defects.h"
#include "kernels/random.h"

namespace kbench::executor {
namespace {

// How the scripted device's variant cheats (kNone: it computes the reference of its inputs).
enum class Cheat {
  kNone,
  kZeros,         // writes zeros
  kConstant,      // writes one value everywhere
  kCopyInput,     // copies its first input
  kReplayFirst,   // computes once, then replays that result on every later run
  kSenseNaN,      // computes only when its output holds NaN (the checked runs' poison)
  kWritesInputs,  // computes, then changes an input element
};

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
  Cheat cheat = Cheat::kNone;
  int begin_sampling = 0, end_sampling = 0;
  // Every seed the inputs were generated from, in order (Prepare's first).
  std::vector<uint64_t> input_seeds;
  // Sealed samples taken (issue 23): every timed sample is one.
  int sealed_samples = 0;
  // The gap of every placement prepared, in order; when set, a placement's sample takes
  // seconds_at_gap(its gap) instead of sample(i).seconds.
  std::vector<int64_t> gaps;
  std::function<double(int64_t gap)> seconds_at_gap;
  // The preparation (0-based, in order) whose timed launch writes wrong outputs; -1: none.
  int timed_output_wrong_at = -1;
  // The device's rates (0: unknown).
  double copy_bandwidth = 0;
  double l2_bandwidth = 0;
  int64_t l2_bytes = 0;
};

class ScriptedVariant : public PreparedVariant {
 public:
  ScriptedVariant(Script* script, const kernels::Problem& problem, uint64_t seed,
                  const BufferPlacement& placement)
      : script_(script),
        problem_(problem),
        op_(kernels::FindOperation(problem.op)),
        gap_(placement.tensor_gap_bytes),
        timed_output_wrong_(script->timed_output_wrong ||
                            script->timed_output_wrong_at ==
                                static_cast<int>(script->gaps.size())) {
    script_->gaps.push_back(gap_);
    const kernels::Layout layout = op_->layout(problem);
    scale_ = static_cast<float>(layout.input_scale);
    for (const auto& t : layout.inputs) inputs_.emplace_back(t.elements);
    for (const auto& t : layout.outputs) outputs_.emplace_back(t.elements);
    EXPECT_TRUE(RegenerateInputs(seed).ok());
  }

  absl::Status RegenerateInputs(uint64_t seed) override {
    script_->input_seeds.push_back(seed);
    Fill(seed);
    return absl::OkStatus();
  }
  absl::StatusOr<kernels::HostTensors> Inputs() override { return inputs_; }
  absl::StatusOr<CheckedOutput> RunChecked() override {
    Poison();
    return CheckedOutput{Run(), 0};
  }
  absl::Status SetSealedPositions(const std::vector<std::vector<int64_t>>& positions) override {
    positions_ = positions;
    return absl::OkStatus();
  }
  absl::StatusOr<SealedSample> TakeSealedSample(const SampleSeal& seal) override {
    Fill(seal.input_seed);
    for (size_t o = 0; o < outputs_.size(); ++o) {
      for (size_t i = 0; i < outputs_[o].size(); ++i) {
        outputs_[o][i] = SealedPatternAt(seal.pattern_seed, static_cast<uint32_t>(o), i);
      }
    }
    SealedSample sealed;
    sealed.sample = Sample();
    const kernels::HostTensors out = Run();
    for (size_t o = 0; o < out.size(); ++o) {
      std::vector<double>& at = sealed.outputs.emplace_back();
      for (const int64_t p : positions_[o]) {
        at.push_back(out[o][p]);
        sealed.unwritten += static_cast<float>(out[o][p]) ==
                            SealedPatternAt(seal.pattern_seed, static_cast<uint32_t>(o), p);
      }
    }
    for (size_t t = 0; t < inputs_.size(); ++t) {
      for (size_t i = 0; i < inputs_[t].size(); ++i) {
        sealed.inputs_changed +=
            inputs_[t][i] !=
            kernels::UniformAt(seal.input_seed, static_cast<uint32_t>(t), i, scale_);
      }
    }
    ++script_->sealed_samples;
    return sealed;
  }
  absl::StatusOr<std::function<kernels::HostTensors()>> SealedInputs(
      const SampleSeal& seal) override {
    Fill(seal.input_seed);
    kernels::HostTensors inputs = inputs_;
    if (op_->pointwise) {
      for (std::vector<double>& in : inputs) {
        std::vector<double> at;
        for (const int64_t p : positions_[0]) at.push_back(in[p]);
        in = std::move(at);
      }
    }
    return [inputs] { return inputs; };
  }
  absl::Status Warmup() override { return absl::OkStatus(); }
  absl::StatusOr<measure::Sample> TakeSample() override {
    Run();
    return Sample();
  }
  absl::StatusOr<TimedCheck> TakeCheckedSample() override {
    Poison();
    TimedCheck check;
    check.sample = Sample();
    check.output.outputs = Run();
    if (timed_output_wrong_) {
      for (double& x : check.output.outputs[0]) x = 0.5;
    }
    return check;
  }
  absl::Status RunOnce() override { return absl::OkStatus(); }

 private:
  measure::Sample Sample() {
    measure::Sample s = script_->sample(samples_++);
    if (script_->seconds_at_gap) s.seconds = script_->seconds_at_gap(gap_);
    return s;
  }

  void Fill(uint64_t seed) {
    for (size_t t = 0; t < inputs_.size(); ++t) {
      for (size_t i = 0; i < inputs_[t].size(); ++i) {
        inputs_[t][i] = kernels::UniformAt(seed, static_cast<uint32_t>(t), i, scale_);
      }
    }
  }

  void Poison() {
    for (auto& o : outputs_) std::fill(o.begin(), o.end(), std::nan(""));
  }

  // One run of the variant: its outputs.
  kernels::HostTensors Run() {
    if (script_->cheat == Cheat::kReplayFirst && runs_++ > 0) return outputs_;
    if (script_->cheat == Cheat::kSenseNaN && !std::isnan(outputs_[0][0])) return outputs_;
    for (auto& o : outputs_) std::fill(o.begin(), o.end(), 0.0);
    switch (script_->cheat) {
      case Cheat::kZeros:
        break;
      case Cheat::kConstant:
        for (auto& o : outputs_) std::fill(o.begin(), o.end(), 0.125);
        break;
      case Cheat::kCopyInput:
        outputs_[0] = inputs_[0];
        break;
      case Cheat::kNone:
      case Cheat::kReplayFirst:
      case Cheat::kSenseNaN:
        op_->reference(problem_, inputs_, &outputs_);
        break;
      case Cheat::kWritesInputs:
        op_->reference(problem_, inputs_, &outputs_);
        inputs_[0][0] += 1;
        break;
    }
    return outputs_;
  }

  Script* script_;
  kernels::Problem problem_;
  const kernels::Operation* op_;
  float scale_ = 1;
  int64_t gap_;
  bool timed_output_wrong_;
  int samples_ = 0;
  int runs_ = 0;
  kernels::HostTensors inputs_, outputs_;
  std::vector<std::vector<int64_t>> positions_;
};

class ScriptedRunner : public DeviceRunner {
 public:
  explicit ScriptedRunner(Script* script) : script_(script) { info_.set_id("fake"); }
  const v1::DeviceInfo& info() const override {
    info_.set_copy_bandwidth_bytes_per_second(script_->copy_bandwidth);
    info_.set_l2_bandwidth_bytes_per_second(script_->l2_bandwidth);
    info_.set_l2_bytes(script_->l2_bytes);
    return info_;
  }
  v1::MeasureMode default_mode() const override { return v1::MEASURE_MODE_HOT; }
  double PeakFlops(kernels::DType) const override { return 0; }
  absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(
      const kernels::Problem& problem, uint64_t seed, v1::MeasureMode,
      const BufferPlacement& placement) override {
    return std::make_unique<ScriptedVariant>(script_, problem, seed, placement);
  }
  void BeginSampling() override { ++script_->begin_sampling; }
  void EndSampling(v1::Environment*) override { ++script_->end_sampling; }

 private:
  Script* script_;
  mutable v1::DeviceInfo info_;
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

// Issue 10, item 5: checks a cheating kernel cannot pass.

TEST_F(BenchmarkJobTest, ChecksOnSeedsItDrawsItselfAndPublishesThemAfterTheRun) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::Environment& env = run->result.environment();
  EXPECT_EQ(env.seed(), 7u);
  EXPECT_NE(env.check_seed(), 0u);
  EXPECT_NE(env.check_seed(), 7u);
  EXPECT_NE(env.timed_check_seed(), 7u);
  EXPECT_NE(env.timed_check_seed(), env.check_seed());
  // Prepared on the spec's seed, checked on the secret one, timed on the spec's again, and the
  // timed launch checked on a second secret seed.
  EXPECT_EQ(script_.input_seeds,
            (std::vector<uint64_t>{7, env.check_seed(), 7, env.timed_check_seed()}));
  const v1::VariantResult& v = run->result.variants(0);
  EXPECT_EQ(v.correctness().input_seed(), env.check_seed());
  EXPECT_EQ(v.timed_correctness().input_seed(), env.timed_check_seed());
  EXPECT_EQ(v.correctness().output_defect(), v1::OUTPUT_DEFECT_UNSPECIFIED);
}

TEST_F(BenchmarkJobTest, DrawsNewCheckSeedsForEveryJob) {
  absl::StatusOr<JobRun> first = Run();
  absl::StatusOr<JobRun> second = Run();
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->result.environment().check_seed(), second->result.environment().check_seed());
}

TEST_F(BenchmarkJobTest, FailsAVariantThatWritesZeros) {
  script_.cheat = Cheat::kZeros;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "softmax/naive does not match the float64 reference: output is "
                                "all zeros but the reference is not"))
      << run.status();
}

TEST_F(BenchmarkJobTest, FailsAVariantThatWritesAConstant) {
  script_.cheat = Cheat::kConstant;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "output is the constant 0.125"))
      << run.status();
}

TEST_F(BenchmarkJobTest, FailsAVariantThatCopiesItsInput) {
  script_.cheat = Cheat::kCopyInput;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "output is a copy of input 0 but the reference is not"))
      << run.status();
}

TEST_F(BenchmarkJobTest, FailsAVariantThatReplaysItsFirstResultOnTheTimedLaunch) {
  // Correct on the checked run; afterwards the stale result of the checked run's inputs.
  // The timed samples themselves are checked now (issue 23): a sealed sample catches it first.
  script_.cheat = Cheat::kReplayFirst;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "of softmax/naive does not match its "
                                "reference"))
      << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "correctness: timed sample "))
      << run.status();
}

// Issue 23: sealed timed samples.

TEST_F(BenchmarkJobTest, ChecksSecretChosenTimedSamplesAndPublishesTheSecretAfterTheRun) {
  job_.mutable_spec()->mutable_stopping()->set_min_samples(300);
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::VariantResult& v = run->result.variants(0);
  EXPECT_EQ(script_.sealed_samples, v.stats().samples());  // every timed sample was sealed
  EXPECT_EQ(v.sealed_checks().samples(), v.stats().samples());
  EXPECT_EQ(v.sealed_checks().samples_checked(), 6);  // 2% of 300
  EXPECT_EQ(v.sealed_checks().positions(), 32);       // 4 x 8: every element
  EXPECT_TRUE(v.sealed_checks().inputs_unchanged());
  EXPECT_GT(v.sealed_checks().unchecked_median_seconds(), 0);
  EXPECT_NE(run->result.environment().sample_secret(), 0u);
}

TEST_F(BenchmarkJobTest, FailsAKernelThatComputesOnlyWhenItsOutputHoldsThePoison) {
  // Correct on both announced checks (NaN poison): only a sealed sample catches it.
  script_.cheat = Cheat::kSenseNaN;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "of softmax/naive does not match its "
                                "reference"))
      << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "still held the sample's output pattern"))
      << run.status();
}

TEST_F(BenchmarkJobTest, FailsAKernelThatWritesItsInputs) {
  script_.cheat = Cheat::kWritesInputs;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "inputs: softmax/naive wrote its inputs"))
      << run.status();
}

TEST_F(BenchmarkJobTest, FailsAMedianUnderThePhysicalFloorAsImpossible) {
  // 4 x 8 f32 softmax: 256 bytes; at 1 GB/s no launch takes less than 256 ns.
  job_.mutable_spec()->set_mode(v1::MEASURE_MODE_COLD);
  script_.copy_bandwidth = 1e9;
  script_.sample = [](int) {  // 10 ns per launch, in batches that meet the minimum time
    measure::Sample s;
    s.seconds = 1e-3;
    s.launches = 100000;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(
      absl::StrContains(run.status().message(), "impossible: softmax/naive median 0.010 us"))
      << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "physical floor 0.256 us")) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "256 bytes / measured copy bandwidth"))
      << run.status();
}

TEST_F(BenchmarkJobTest, RecordsTheFloorOfAPossibleMedian) {
  job_.mutable_spec()->set_mode(v1::MEASURE_MODE_COLD);
  script_.copy_bandwidth = 1e9;
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::PhysicalFloor& f = run->result.variants(0).floor();
  EXPECT_TRUE(f.judged());
  EXPECT_FALSE(f.impossible());
  EXPECT_EQ(f.basis(), v1::FLOOR_BASIS_COPY_BANDWIDTH);
  EXPECT_DOUBLE_EQ(f.floor_seconds(), 256e-9);
  EXPECT_DOUBLE_EQ(f.median_seconds(), 0.01);
}

TEST_F(BenchmarkJobTest, HoldsAHotProblemThatFitsInTheL2ToTheL2Bandwidth) {
  script_.copy_bandwidth = 1e9;
  script_.l2_bandwidth = 4e9;
  script_.l2_bytes = 1 << 20;
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::PhysicalFloor& f = run->result.variants(0).floor();
  EXPECT_EQ(f.basis(), v1::FLOOR_BASIS_L2_BANDWIDTH);
  EXPECT_DOUBLE_EQ(f.bandwidth_bytes_per_second(), 4e9);
}

TEST_F(BenchmarkJobTest, DoesNotJudgeAHotRunOnADeviceWithoutAKnownCache) {
  // The cpu device: hot mode, no L2 size; a tiny time is not called impossible.
  script_.copy_bandwidth = 1e9;
  script_.sample = [](int) {  // 10 ns per launch, in batches that meet the minimum time
    measure::Sample s;
    s.seconds = 1e-3;
    s.launches = 100000;
    return s;
  };
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->result.variants(0).floor().judged());
}

// A hand-made reference with a loose tolerance: a constant output lands within it, and still
// fails as degenerate.
// Buffer placements (JobSpec.placements): each variant set up at several addresses, every copy
// checked and sampled, the samples pooled and each placement's median kept.

TEST_F(BenchmarkJobTest, SamplesEveryPlacementAndPoolsThemIntoOneResult) {
  job_.mutable_spec()->set_placements(3);
  // A placement's time grows with its gap: 10 ms with none, up to 11 ms at the largest.
  script_.seconds_at_gap = [](int64_t gap) { return 0.010 * (1 + gap / double{8 << 20} / 10); };
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(script_.gaps.size(), 3u);
  EXPECT_EQ(script_.gaps[0], 0);  // the first placement is a job of one placement's layout
  const v1::VariantResult& v = run->result.variants(0);
  ASSERT_EQ(v.placements_size(), 3);
  int64_t samples = 0;
  std::vector<double> medians;
  for (int p = 0; p < 3; ++p) {
    const v1::PlacementResult& placement = v.placements(p);
    EXPECT_EQ(placement.tensor_gap_bytes(), script_.gaps[p]);
    EXPECT_DOUBLE_EQ(placement.median_seconds(), script_.seconds_at_gap(script_.gaps[p]));
    EXPECT_GE(placement.samples(), 10);  // each placement meets the stopping rule on its own
    samples += placement.samples();
    medians.push_back(placement.median_seconds());
  }
  EXPECT_EQ(v.stats().samples(), samples);
  EXPECT_EQ(v.sample_seconds_size(), samples);
  std::sort(medians.begin(), medians.end());
  EXPECT_DOUBLE_EQ(v.placement_spread(), (medians[2] - medians[0]) / medians[1]);
  EXPECT_DOUBLE_EQ(v.stats().median_seconds(), medians[1]);  // equal counts: the middle one
  EXPECT_FALSE(v.drifted());  // the placements interleave: no half is slower
  EXPECT_TRUE(v.converged());
}

TEST_F(BenchmarkJobTest, DrawsTheSameGapsFromTheSameSeedAndGapsOnTheAlignment) {
  job_.mutable_spec()->set_placements(4);
  ASSERT_TRUE(Run().ok());
  const std::vector<int64_t> first = script_.gaps;
  script_.gaps.clear();
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(script_.gaps, first);
  for (size_t p = 1; p < first.size(); ++p) {
    EXPECT_GT(first[p], 0);
    EXPECT_EQ(first[p] % 256, 0);
  }
  job_.mutable_spec()->set_seed(8);
  script_.gaps.clear();
  ASSERT_TRUE(Run().ok());
  EXPECT_NE(script_.gaps, first);
}

TEST_F(BenchmarkJobTest, OnePlacementReportsNoPlacements) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(script_.gaps, std::vector<int64_t>{0});
  EXPECT_EQ(run->result.variants(0).placements_size(), 0);
  EXPECT_EQ(run->result.variants(0).placement_spread(), 0);
}

TEST_F(BenchmarkJobTest, FailsAVariantWhoseTimedLaunchIsWrongAtOnePlacementNamingIt) {
  job_.mutable_spec()->set_placements(3);
  script_.timed_output_wrong_at = 1;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "softmax/naive's timed launch at placement 2 of 3 does not match"))
      << run.status();
}

TEST_F(BenchmarkJobTest, WritesEachSampleWithItsPlacement) {
  job_.mutable_spec()->set_placements(2);
  ASSERT_TRUE(Run().ok());
  std::ifstream csv(dir_ + "/samples.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_TRUE(absl::EndsWith(line, ",placement")) << line;
  std::set<std::string> placements;
  while (std::getline(csv, line)) placements.insert(line.substr(line.rfind(',') + 1));
  EXPECT_EQ(placements, (std::set<std::string>{"1", "2"}));
}

TEST_F(BenchmarkJobTest, RefusesPlacementsOutOfRange) {
  for (int bad : {-1, 17}) {
    job_.mutable_spec()->set_placements(bad);
    absl::StatusOr<JobRun> run = Run();
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(absl::StrContains(run.status().message(), "placements")) << run.status();
  }
}

TEST(CompareWithReference, FailsAConstantOutputThatPassesALooseTolerance) {
  Reference ref;
  ref.tolerance = 0.1;
  ref.defect_thresholds = kernels::DefectThresholdsFor(kernels::DType::kF32);
  ref.values = {{1.0, 1.01, 0.99, 1.02}};
  const v1::Correctness c = CompareWithReference(ref, CheckedOutput{{{1.0, 1.0, 1.0, 1.0}}, 0});
  EXPECT_LT(c.relative_l2_error(), 0.1);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.output_defect(), v1::OUTPUT_DEFECT_CONSTANT);
  EXPECT_TRUE(absl::StrContains(c.detail(), "within tolerance")) << c.detail();
}

TEST(CompareWithReference, PassesTheSameOutputWhenTheReferenceIsConstantToo) {
  Reference ref;
  ref.tolerance = 0.1;
  ref.defect_thresholds = kernels::DefectThresholdsFor(kernels::DType::kF32);
  ref.values = {{1.0, 1.0, 1.0, 1.0}};
  const v1::Correctness c = CompareWithReference(ref, CheckedOutput{{{1.0, 1.0, 1.0, 1.0}}, 0});
  EXPECT_TRUE(c.passed()) << c.detail();
  EXPECT_EQ(c.output_defect(), v1::OUTPUT_DEFECT_UNSPECIFIED);
}

}  // namespace
}  // namespace kbench::executor
