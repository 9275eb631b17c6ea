// GPU tests of the checks a cheating kernel cannot pass (issue 10, item 5): cheating CUDA
// kernels run through the real harness (CudaRunner, RunBenchmarkJob) exactly as any variant
// does, each caught with its reason; the catalogue's correct kernels stay possible in every
// mode, and the executor measures an L2 bandwidth. Each test skips without a CUDA device.
#include "tests/gpu/cheating_kernels.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/cuda/cuda_runner.h"
#include "tests/gpu/test_kernels.h"

namespace kbench::executor::cuda {
namespace {

using kernels::cuda::CudaVariant;

// Registered under a catalogue name, so that validation passes and the reference is square's.
const CudaVariant kZeros{"square", "vectorized", &testing::ZerosLaunch};
const CudaVariant kCopyInput{"square", "vectorized", &testing::CopyInputLaunch};
const CudaVariant kFirstLaunchOnly{"square", "vectorized", &testing::FirstLaunchOnlyLaunch};
const CudaVariant kSkipWhenWritten{"square", "vectorized", &testing::SkipWhenWrittenLaunch};

// The variant the shared runner launches, whatever the job names; nullptr: the catalogue's.
const CudaVariant* g_variant = nullptr;

struct TestJob {
  internal::v1::RunJob job;
  JobContext context;
};

std::unique_ptr<TestJob> MakeJob(const std::string& op, const std::string& variant,
                                 const std::vector<int64_t>& shape, v1::MeasureMode mode) {
  static int counter = 0;
  auto t = std::make_unique<TestJob>();
  v1::JobSpec* spec = t->job.mutable_spec();
  spec->set_kind(v1::JOB_KIND_BENCHMARK);
  spec->set_kernel(op);
  spec->add_variants(variant);
  for (int64_t d : shape) spec->add_shape(d);
  spec->set_dtype(v1::DTYPE_F32);
  spec->set_device("cuda:0");
  spec->set_mode(mode);
  spec->mutable_stopping()->set_min_time_seconds(0.05);
  spec->mutable_stopping()->set_timeout_seconds(10);
  const std::string dir = absl::StrFormat("%s/cheating_kernels_%d_%d", ::testing::TempDir(),
                                          static_cast<int>(getpid()), counter++);
  std::filesystem::create_directories(dir);
  t->job.set_job_id(absl::StrCat("cheat-", counter));
  t->job.set_artifact_dir(dir);
  t->context.job = &t->job;
  return t;
}

class CheatingKernelsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::HasCudaDevice()) return;
    CudaRunnerOptions o;
    o.find_variant = [](const std::string& op, const std::string& variant) {
      return g_variant != nullptr ? g_variant : kernels::cuda::FindCudaVariant(op, variant);
    };
    runner_ = new CudaRunner(0, o);
    init_ = new absl::Status(runner_->Initialize());
  }
  static void TearDownTestSuite() {
    delete runner_;
    delete init_;
    runner_ = nullptr;
    init_ = nullptr;
  }
  void SetUp() override {
    if (!testing::HasCudaDevice()) GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(init_->ok()) << *init_;
    testing::ResetFirstLaunchOnly();
  }
  void TearDown() override { g_variant = nullptr; }

  absl::StatusOr<JobRun> Run(const CudaVariant* variant, const std::string& op,
                             const std::string& name, const std::vector<int64_t>& shape,
                             v1::MeasureMode mode) {
    g_variant = variant;
    std::unique_ptr<TestJob> t = MakeJob(op, name, shape, mode);
    absl::StatusOr<JobRun> run = RunBenchmarkJob(*runner_, t->context);
    if (!run.ok()) return runner_->CheckHealth(run.status());
    return run;
  }

  static CudaRunner* runner_;
  static absl::Status* init_;
};
CudaRunner* CheatingKernelsTest::runner_ = nullptr;
absl::Status* CheatingKernelsTest::init_ = nullptr;

constexpr v1::MeasureMode kModes[] = {v1::MEASURE_MODE_COLD, v1::MEASURE_MODE_HOT,
                                      v1::MEASURE_MODE_GRAPH};

std::string ModeName(v1::MeasureMode m) { return v1::MeasureMode_Name(m); }

TEST_F(CheatingKernelsTest, InitializeMeasuresAnL2BandwidthAboveTheCopyBandwidth) {
  const v1::DeviceInfo& info = runner_->info();
  std::printf("[ RESULT   ] copy bandwidth %.1f GB/s, L2-resident copy %.1f GB/s (L2 %lld bytes)\n",
              info.copy_bandwidth_bytes_per_second() / 1e9,
              info.l2_bandwidth_bytes_per_second() / 1e9, static_cast<long long>(info.l2_bytes()));
  EXPECT_GT(info.l2_bandwidth_bytes_per_second(), info.copy_bandwidth_bytes_per_second());
}

TEST_F(CheatingKernelsTest, AKernelThatWritesZerosFails) {
  absl::StatusOr<JobRun> run =
      Run(&kZeros, "square", "vectorized", {1 << 20}, v1::MEASURE_MODE_COLD);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(
      absl::StrContains(run.status().message(), "output is all zeros but the reference is not"))
      << run.status();
  EXPECT_FALSE(runner_->NeedsRestart());
}

TEST_F(CheatingKernelsTest, AKernelThatCopiesItsInputFails) {
  absl::StatusOr<JobRun> run =
      Run(&kCopyInput, "square", "vectorized", {1 << 20}, v1::MEASURE_MODE_COLD);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(),
                                "output is a copy of input 0 but the reference is not"))
      << run.status();
}

TEST_F(CheatingKernelsTest, AKernelThatComputesOnlyOnItsFirstLaunchFailsInEveryMode) {
  // It writes every element on every launch, so only fresh inputs expose the stale result: a
  // sealed timed sample's (issue 23) catches it first, before the timed check after sampling.
  for (v1::MeasureMode mode : kModes) {
    testing::ResetFirstLaunchOnly();
    absl::StatusOr<JobRun> run = Run(&kFirstLaunchOnly, "square", "vectorized", {1 << 20}, mode);
    EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition)
        << ModeName(mode) << ": " << run.status();
    EXPECT_TRUE(absl::StrContains(run.status().message(),
                                  "of square/vectorized does not match its reference (inputs of "
                                  "its own"))
        << ModeName(mode) << ": " << run.status();
    EXPECT_TRUE(absl::StrContains(run.status().message(), "correctness: timed sample "))
        << ModeName(mode) << ": " << run.status();
  }
  testing::ResetFirstLaunchOnly();
}

TEST_F(CheatingKernelsTest, AKernelThatSkipsWorkWhileTimedFailsItsSealedSamples) {
  // 2^26 floats read and written: 512 MiB, some 150 us at an H100's copy bandwidth; the cheat's
  // two tiny kernels take a few microseconds and write nothing while timed. Its median would be
  // impossible too, but the sealed samples (issue 23) hold the output pattern, which fails it
  // first and names why.
  absl::StatusOr<JobRun> run =
      Run(&kSkipWhenWritten, "square", "vectorized", {1 << 26}, v1::MEASURE_MODE_COLD);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kFailedPrecondition) << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "of square/vectorized does not match"))
      << run.status();
  EXPECT_TRUE(absl::StrContains(run.status().message(), "still held the sample's output pattern"))
      << run.status();
}

// The checks are harmless: the catalogue's kernels pass them in every mode, small problems
// (held to the L2 in hot and graph modes) and large ones alike.
TEST_F(CheatingKernelsTest, CatalogueKernelsStayPossibleInEveryMode) {
  struct Case {
    const char* op;
    const char* variant;
    std::vector<int64_t> shape;
  };
  const std::vector<Case> cases = {
      {"copy", "vectorized", {1 << 20}},        {"copy", "vectorized", {1 << 26}},
      {"add", "vectorized", {1 << 20}},         {"square", "vectorized", {1 << 22}},
      {"softmax", "fused", {1024, 1024}},       {"reduce", "rows_warp", {4096, 1024}},
      {"matmul", "cublas", {2048, 2048, 2048}},
  };
  for (const Case& c : cases) {
    for (v1::MeasureMode mode : kModes) {
      const std::string label = absl::StrCat(c.op, "/", c.variant, " ", ModeName(mode));
      absl::StatusOr<JobRun> run = Run(nullptr, c.op, c.variant, c.shape, mode);
      ASSERT_TRUE(run.ok()) << label << ": " << run.status();
      const v1::PhysicalFloor& f = run->result.variants(0).floor();
      std::printf("[ RESULT   ] %-40s %s\n", label.c_str(), f.detail().c_str());
      EXPECT_TRUE(f.judged()) << label << ": " << f.detail();
      EXPECT_FALSE(f.impossible()) << label << ": " << f.detail();
    }
  }
}

}  // namespace
}  // namespace kbench::executor::cuda
