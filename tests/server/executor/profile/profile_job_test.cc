// RunProfileJob's pipeline on CPU: a fake device whose runs append kernel records to a fake
// activity recorder, so the phases, the artifacts and the results can be checked without a GPU.
#include "server/executor/profile/profile_job.h"

#include <cuda_runtime.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "kernels/catalogue.h"
#include "kernels/random.h"
#include "nlohmann/json.hpp"

namespace kbench::executor {
namespace {

// The device: a clock (read by the counter sampler's thread too) and the records its runs leave.
struct FakeDevice {
  std::atomic<uint64_t> now{5'000'000};
  uint32_t next_correlation = 1;
  profile::ActivityLog log;
  int recorder_starts = 0;
  // NoteLaunches calls, with the phase the device was in: "on@<kernels so far>".
  std::vector<std::string> noting;
  uint64_t dropped = 0;
  uint64_t over_limit = 0;
};

class FakeVariant : public PreparedVariant {
 public:
  // Each run launches one kernel per entry of `kernel_ns` (its duration).
  FakeVariant(FakeDevice* device, const kernels::Problem& problem, uint64_t seed,
              std::vector<uint64_t> kernel_ns, bool wrong)
      : device_(device), problem_(problem), kernel_ns_(std::move(kernel_ns)), wrong_(wrong) {
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
    for (size_t o = 0; o < layout.outputs.size(); ++o)
      outputs_[o].assign(layout.outputs[o].elements, 0);
    op->reference(problem, inputs_, &outputs_);
  }

  absl::Status RegenerateInputs(uint64_t) override { return absl::OkStatus(); }
  absl::StatusOr<kernels::HostTensors> Inputs() override { return inputs_; }
  absl::StatusOr<CheckedOutput> RunChecked() override {
    if (absl::Status s = RunOnce(); !s.ok()) return s;
    CheckedOutput out;
    out.outputs = outputs_;
    if (wrong_) out.outputs[0][0] += 1.0;
    return out;
  }
  absl::Status Warmup() override { return RunOnce(); }
  absl::StatusOr<measure::Sample> TakeSample() override {
    return absl::UnimplementedError("not used by profiles");
  }
  absl::StatusOr<TimedCheck> TakeCheckedSample() override {
    return absl::UnimplementedError("not used by profiles");
  }
  absl::Status SetSealedPositions(const std::vector<std::vector<int64_t>>&) override {
    return absl::UnimplementedError("not used by profiles");
  }
  absl::StatusOr<SealedSample> TakeSealedSample(const SampleSeal&) override {
    return absl::UnimplementedError("not used by profiles");
  }
  absl::StatusOr<std::function<kernels::HostTensors()>> SealedInputs(const SampleSeal&) override {
    return absl::UnimplementedError("not used by profiles");
  }
  absl::Status RunOnce() override {
    for (size_t k = 0; k < kernel_ns_.size(); ++k) {
      const uint32_t c = device_->next_correlation++;
      profile::ApiActivity& a = device_->log.api_calls.emplace_back();
      a.name = "cudaLaunchKernel";
      a.start_ns = device_->now;
      a.end_ns = device_->now + 2000;
      a.process_id = static_cast<uint32_t>(getpid());
      a.thread_id = static_cast<uint32_t>(gettid());
      a.correlation_id = c;
      profile::KernelActivity& kernel = device_->log.kernels.emplace_back();
      kernel.name = problem_.variant + "_kernel_" + std::to_string(k);
      kernel.start_ns = device_->now + 3000;
      kernel.end_ns = kernel.start_ns + kernel_ns_[k];
      kernel.stream = 7;
      kernel.correlation_id = c;
      kernel.block[0] = 256, kernel.block[1] = 1, kernel.block[2] = 1;
      kernel.grid[0] = 4, kernel.grid[1] = 1, kernel.grid[2] = 1;
      kernel.registers_per_thread = 32;
      device_->now = kernel.end_ns + 1000;
    }
    return absl::OkStatus();
  }

 private:
  FakeDevice* device_;
  kernels::Problem problem_;
  std::vector<uint64_t> kernel_ns_;
  bool wrong_;
  kernels::HostTensors inputs_, outputs_;
};

class FakeRunner : public DeviceRunner {
 public:
  explicit FakeRunner(FakeDevice* device) : device_(device) {
    info_.set_id("cuda:0");
    info_.set_name("Fake GPU");
  }
  const v1::DeviceInfo& info() const override { return info_; }
  ConditionsReader* conditions_reader() override { return conditions_; }
  v1::MeasureMode default_mode() const override { return v1::MEASURE_MODE_COLD; }
  double PeakFlops(kernels::DType) const override { return 0; }
  absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(const kernels::Problem& problem,
                                                           uint64_t seed, v1::MeasureMode,
                                                           const BufferPlacement&) override {
    // naive: five kernels of 10..14 us; fused: one of 20 us.
    std::vector<uint64_t> ns = problem.variant == "naive"
                                   ? std::vector<uint64_t>{10000, 11000, 12000, 13000, 14000}
                                   : std::vector<uint64_t>{20000};
    return std::make_unique<FakeVariant>(device_, problem, seed, ns, problem.variant == wrong_);
  }
  std::string wrong_;
  ConditionsReader* conditions_ = nullptr;

 private:
  FakeDevice* device_;
  v1::DeviceInfo info_;
};

// NVML's counters, fixed: a GPU at 350 W, 1980/2619 MHz, 51 C.
class SteadyGpu : public ConditionsReader {
 public:
  ConditionsReading Read() override {
    ConditionsReading r;
    r.power_watts = 350.0;
    r.sm_clock_mhz = 1980;
    r.memory_clock_mhz = 2619;
    r.temperature_c = 51;
    reads++;
    return r;
  }
  std::atomic<int> reads{0};
};

class FakeRecorder : public profile::ActivityRecorder {
 public:
  explicit FakeRecorder(FakeDevice* device) : device_(device) {}
  uint64_t Now() override { return device_->now += 100; }
  void NoteLaunches(bool on) override {
    device_->noting.push_back((on ? "on@" : "off@") + std::to_string(device_->log.kernels.size()));
  }
  absl::StatusOr<profile::ActivityLog> Stop() override {
    profile::ActivityLog log = device_->log;
    log.dropped_records = device_->dropped;
    log.records_over_limit = device_->over_limit;
    return log;
  }

 private:
  FakeDevice* device_;
};

class ProfileJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kbench_profile_job_XXXXXX";
    dir_ = mkdtemp(tmpl);
    job_.set_job_id("job-42");
    job_.set_artifact_dir(dir_);
    v1::JobSpec* spec = job_.mutable_spec();
    spec->set_kind(v1::JOB_KIND_PROFILE);
    spec->set_kernel("softmax");
    spec->add_variants("naive");
    spec->add_variants("fused");
    spec->add_shape(4);
    spec->add_shape(8);
    spec->set_dtype(v1::DTYPE_F32);
    spec->set_device("cuda:0");
    spec->set_seed(7);
    spec->mutable_profile()->set_iterations(6);
    context_.job = &job_;
    context_.cancelled = &cancelled_;
    context_.progress = [this](const v1::Progress& p) { progress_.push_back(p); };
  }
  void TearDown() override { std::system(("rm -rf '" + dir_ + "'").c_str()); }

  absl::StatusOr<JobRun> Run() {
    return profile::RunProfileJobWith(runner_, context_, [this]() {
      device_.recorder_starts++;
      return absl::StatusOr<std::unique_ptr<profile::ActivityRecorder>>(
          std::make_unique<FakeRecorder>(&device_));
    });
  }

  static std::string Read(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }

  FakeDevice device_;
  FakeRunner runner_{&device_};
  internal::v1::RunJob job_;
  JobContext context_;
  std::atomic<bool> cancelled_{false};
  std::vector<v1::Progress> progress_;
  std::string dir_;
};

TEST_F(ProfileJobTest, WritesTraceAndSummaryArtifacts) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<std::string> names;
  for (const auto& a : run->artifacts) {
    names.push_back(a.name());
    struct stat st;
    ASSERT_EQ(stat(a.path().c_str(), &st), 0) << a.path();
    EXPECT_GT(st.st_size, 0) << a.path();
    EXPECT_EQ(a.path().rfind(dir_, 0), 0u) << a.path();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"trace.json", "summary.txt", "summary.json"}));
  EXPECT_EQ(run->artifacts[0].content_type(), "application/json");
  EXPECT_EQ(run->artifacts[1].content_type(), "text/plain");
  const nlohmann::json trace = nlohmann::json::parse(Read(run->artifacts[0].path()));
  EXPECT_EQ(trace["otherData"]["job_id"], "job-42");
  EXPECT_NE(Read(run->artifacts[1].path()).find("Profile of softmax [4x8]"), std::string::npos);
}

TEST_F(ProfileJobTest, DrawsTheDevicesPowerClocksAndTemperatureAsCounterTracks) {
  SteadyGpu gpu;
  runner_.conditions_ = &gpu;
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const nlohmann::json trace = nlohmann::json::parse(Read(run->artifacts[0].path()));
  std::map<std::string, int> counters;
  int64_t kernel_pid = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "kernel") kernel_pid = e["pid"];
  }
  double last_ts = -1;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "C") continue;
    counters[e["name"].get<std::string>()]++;
    EXPECT_EQ(e["pid"], kernel_pid) << "counters sit beside the device's streams";
    EXPECT_GE(e["ts"].get<double>(), last_ts) << "counter events in time order";
    last_ts = e["ts"].get<double>();
    if (e["name"] == "GPU power") {
      EXPECT_EQ(e["args"]["watts"], 350.0);
    }
    if (e["name"] == "GPU clocks") {
      EXPECT_EQ(e["args"]["sm MHz"], 1980);
      EXPECT_EQ(e["args"]["memory MHz"], 2619);
    }
    if (e["name"] == "GPU temperature") {
      EXPECT_EQ(e["args"]["C"], 51);
    }
  }
  // At least a reading as recording starts and one as it stops.
  EXPECT_GE(counters["GPU power"], 2);
  EXPECT_EQ(counters["GPU clocks"], counters["GPU power"]);
  EXPECT_EQ(counters["GPU temperature"], counters["GPU power"]);
  EXPECT_EQ(gpu.reads.load(), counters["GPU power"]);
}

TEST_F(ProfileJobTest, ATraceWithoutNvmlHasNoCounterTracks) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  const nlohmann::json trace = nlohmann::json::parse(Read(run->artifacts[0].path()));
  for (const auto& e : trace["traceEvents"]) EXPECT_NE(e["ph"], "C") << e.dump();
}

TEST_F(ProfileJobTest, RecordsIterationsTimesLaunchesKernelsPerVariant) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  // Every run (check, warm-up, 6 recorded) left records; only the recorded ones count.
  EXPECT_EQ(device_.log.kernels.size(), (1u + 1u + 6u) * (5u + 1u));
  const nlohmann::json trace = nlohmann::json::parse(Read(run->artifacts[0].path()));
  std::map<std::string, int> recorded;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "kernel" && e["args"].value("phase", "") == "profile") {
      recorded[e["args"]["variant"].get<std::string>()]++;
    }
  }
  EXPECT_EQ(recorded["naive"], 6 * 5);
  EXPECT_EQ(recorded["fused"], 6 * 1);
  const v1::ProfileResult& p = run->result.profile();
  ASSERT_EQ(p.kernels_size(), 6);
  int64_t calls = 0;
  for (const auto& k : p.kernels()) calls += k.calls();
  EXPECT_EQ(calls, 6 * 5 + 6);
  EXPECT_EQ(p.kernels(0).name(), "fused_kernel_0");  // 6 × 20 us, the largest total
  EXPECT_NEAR(p.gpu_seconds(), 6 * (60e-6 + 20e-6), 1e-12);
  EXPECT_GT(p.gpu_busy_fraction(), 0.5);
  EXPECT_LE(p.gpu_busy_fraction(), 1.0);
}

TEST_F(ProfileJobTest, ReportsEachVariantsGpuTimePerIterationAndCorrectness) {
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->result.variants_size(), 2);
  const v1::VariantResult& naive = run->result.variants(0);
  EXPECT_EQ(naive.variant(), "naive");
  EXPECT_TRUE(naive.correctness().checked());
  EXPECT_TRUE(naive.correctness().passed());
  EXPECT_EQ(naive.stats().samples(), 6);
  EXPECT_NEAR(naive.stats().median_seconds(), 60e-6, 1e-12);
  EXPECT_NEAR(run->result.variants(1).stats().median_seconds(), 20e-6, 1e-12);
  EXPECT_NEAR(run->result.variants(1).speedup_vs_first(), 3.0, 1e-9);
  EXPECT_EQ(run->result.environment().seed(), 7u);
}

TEST_F(ProfileJobTest, ReportsProgressThroughThePhases) {
  ASSERT_TRUE(Run().ok());
  std::vector<std::string> phases;
  for (const auto& p : progress_) {
    if (phases.empty() || phases.back() != p.phase()) phases.push_back(p.phase());
  }
  EXPECT_EQ(phases,
            (std::vector<std::string>{"check", "warmup", "profile", "check", "warmup", "profile"}));
  EXPECT_EQ(progress_.back().variant(), "fused");
  EXPECT_EQ(progress_.back().samples(), 6);
}

TEST_F(ProfileJobTest, NotesLaunchesOnlyWhileEachVariantIsChecked) {
  ASSERT_TRUE(Run().ok());
  // On before naive's check (no kernels yet), off after its 5; on again for fused's check,
  // which starts after naive's check, warm-up and 6 recorded runs (8 × 5 kernels).
  EXPECT_EQ(device_.noting, (std::vector<std::string>{"on@0", "off@5", "on@40", "off@41"}));
}

TEST_F(ProfileJobTest, RejectsIterationsOutsideTheRange) {
  job_.mutable_spec()->mutable_profile()->set_iterations(-1);
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(run.status().message(), "profile.iterations: -1 is outside [1, 10000]");
  EXPECT_EQ(device_.recorder_starts, 0);
}

TEST_F(ProfileJobTest, DefaultsToTenIterations) {
  job_.mutable_spec()->mutable_profile()->set_iterations(0);
  absl::StatusOr<JobRun> run = Run();
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->result.variants(1).stats().samples(), 10);
}

TEST_F(ProfileJobTest, RejectsASpecWithoutVariants) {
  job_.mutable_spec()->clear_variants();
  EXPECT_EQ(Run().status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ProfileJobTest, RejectsAnUnknownVariantBeforeRecording) {
  job_.mutable_spec()->add_variants("nope");
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(device_.recorder_starts, 0);
}

TEST_F(ProfileJobTest, FailsWithoutNcuBeforeAnyDeviceWork) {
  job_.mutable_spec()->mutable_profile()->set_ncu(true);
  setenv("KBENCH_NCU", "/nonexistent/bin/ncu", 1);
  absl::StatusOr<JobRun> run = Run();
  unsetenv("KBENCH_NCU");
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(run.status().message().find("profile.ncu: ncu not found"), std::string::npos)
      << run.status();
  EXPECT_EQ(device_.recorder_starts, 0);
  EXPECT_TRUE(device_.log.kernels.empty());
}

TEST_F(ProfileJobTest, FailsAVariantThatDoesNotMatchTheReference) {
  runner_.wrong_ = "fused";
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(run.status().message().find("correctness: softmax/fused"), std::string::npos)
      << run.status();
}

TEST_F(ProfileJobTest, StopsWhenCancelled) {
  cancelled_ = true;
  EXPECT_EQ(Run().status().code(), absl::StatusCode::kCancelled);
}

TEST_F(ProfileJobTest, FailsWhenCuptiDroppedRecords) {
  device_.dropped = 12;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(run.status().message().find("dropped 12"), std::string::npos) << run.status();
}

// Issue 12, item 8: the collector keeps at most kMaxActivityRecords and counts the rest.
TEST_F(ProfileJobTest, FailsARecordingPastTheRecordLimitNamingIterations) {
  device_.over_limit = 345;
  absl::StatusOr<JobRun> run = Run();
  EXPECT_EQ(run.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string message(run.status().message());
  EXPECT_NE(message.find("passed 500000 activity records (345 more were not kept)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("lower profile.iterations"), std::string::npos) << message;
}

TEST_F(ProfileJobTest, KeepsTheRawActivityWhenAsked) {
  setenv("KBENCH_PROFILE_KEEP_ACTIVITY", "1", 1);
  absl::StatusOr<JobRun> run = Run();
  unsetenv("KBENCH_PROFILE_KEEP_ACTIVITY");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->artifacts.size(), 4u);
  EXPECT_EQ(run->artifacts[3].name(), "activity.json");
  const nlohmann::json a = nlohmann::json::parse(Read(run->artifacts[3].path()));
  EXPECT_EQ(a["kernels"].size(), device_.log.kernels.size());
  EXPECT_FALSE(a["spans"].empty());
}

TEST_F(ProfileJobTest, FailsClearlyWhereCuptiCannotRecord) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    GTEST_SKIP() << "a CUDA device is present: CUPTI can record here";
  }
  cudaGetLastError();
  // The real RunProfileJob: CUPTI, not the fake recorder.
  absl::StatusOr<JobRun> run = RunProfileJob(runner_, context_);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_NE(run.status().message().find("CUPTI: no CUDA device"), std::string::npos)
      << run.status();
  EXPECT_TRUE(device_.log.kernels.empty());
}

}  // namespace
}  // namespace kbench::executor
