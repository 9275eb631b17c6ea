// GPU tests (label gpu; they skip without a CUDA device): real profiles of softmax naive vs
// fused through the CUDA backend. The trace must parse, the recorded kernel count must be the
// variant's launches per run times the iterations, and the summed kernel time per run must agree
// with a benchmark's median within 10%. With ncu installed, Nsight Compute's metrics too.
//
// The binary doubles as the Nsight Compute target (`profile_gpu_test --ncu-target SPEC`), as
// kbenchd does, since the profile job runs ncu on /proc/self/exe.
#include <cuda_runtime.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/executor/backend.h"
#include "server/executor/profile/ncu_runner.h"
#include "server/executor/profile/ncu_target.h"
#include "server/executor/profile/trace_clock.h"
#include "tests/server/executor/profile/trace_checks.h"

namespace kbench::executor {
namespace {

using nlohmann::json;

bool HasCudaDevice() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Copies some of a job's artifacts to $KBENCH_PROFILE_TEST_OUT/<prefix>_<name> when set (to
// keep real recordings as fixtures).
void KeepArtifacts(const JobRun& run, const std::string& prefix,
                   const std::vector<std::string>& names) {
  const char* out = std::getenv("KBENCH_PROFILE_TEST_OUT");
  if (out == nullptr) return;
  for (const auto& a : run.artifacts) {
    if (std::find(names.begin(), names.end(), a.name()) == names.end()) continue;
    std::ifstream in(a.path(), std::ios::binary);
    std::ofstream copy(std::string(out) + "/" + prefix + "_" + a.name(), std::ios::binary);
    copy << in.rdbuf();
  }
}

class ProfileGpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!HasCudaDevice()) return;
    backend_ = MakeCudaBackend(0).release();
    if (backend_ == nullptr) return;
    absl::StatusOr<v1::DeviceInfo> info = backend_->Initialize();
    init_status_ = info.status();
  }
  static void TearDownTestSuite() {
    delete backend_;
    backend_ = nullptr;
  }

  void SetUp() override {
    if (!HasCudaDevice()) GTEST_SKIP() << "no CUDA device";
    ASSERT_NE(backend_, nullptr) << "a CUDA device is present but MakeCudaBackend(0) is null";
    ASSERT_TRUE(init_status_.ok()) << init_status_;
    char tmpl[] = "/tmp/kbench_profile_gpu_XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  static v1::JobSpec SoftmaxSpec(v1::JobKind kind, std::vector<std::string> variants) {
    v1::JobSpec spec;
    spec.set_kind(kind);
    spec.set_kernel("softmax");
    for (const std::string& v : variants) spec.add_variants(v);
    // 64 MiB in and out: more than the H100's 50 MiB L2, so runs do not live in cache.
    spec.add_shape(4096);
    spec.add_shape(4096);
    spec.set_dtype(v1::DTYPE_F32);
    spec.set_device("cuda:0");
    spec.set_seed(1234);
    return spec;
  }

  absl::StatusOr<JobRun> Run(const v1::JobSpec& spec, const std::string& name) {
    internal::v1::RunJob job;
    job.set_job_id(name);
    const std::string dir = dir_ + "/" + name;
    mkdir(dir.c_str(), 0755);
    job.set_artifact_dir(dir);
    *job.mutable_spec() = spec;
    std::atomic<bool> cancelled{false};
    JobContext context;
    context.job = &job;
    context.cancelled = &cancelled;
    return backend_->Run(context);
  }

  static const internal::v1::ArtifactFile* Artifact(const JobRun& run, const std::string& name) {
    for (const auto& a : run.artifacts) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }

  // Kernels recorded in the profile phase, per variant, from the trace artifact.
  static std::map<std::string, int> RecordedKernels(const json& trace) {
    std::map<std::string, int> n;
    for (const json& e : trace["traceEvents"]) {
      if (e["ph"] == "X" && e.value("cat", "") == "kernel" &&
          e["args"].value("phase", "") == "profile") {
        n[e["args"]["variant"].get<std::string>()]++;
      }
    }
    return n;
  }

  static DeviceBackend* backend_;
  static absl::Status init_status_;
  std::string dir_;
};

DeviceBackend* ProfileGpuTest::backend_ = nullptr;
absl::Status ProfileGpuTest::init_status_;

// The relative half-width of a median's 95% confidence interval: how far two honest
// measurements of the same thing may differ by sampling alone.
double RelativeCiHalfWidth(const v1::Statistics& s) {
  return 0.5 * (s.median_ci_high_seconds() - s.median_ci_low_seconds()) / s.median_seconds();
}

// fused's median over naive's, both sampled interleaved in one job: another tenant's load on a
// shared GPU slows both alike and cancels out, where medians of separate jobs move apart.
double InterleavedRatio(const JobRun& run, double* uncertainty) {
  const v1::Statistics& fused = run.result.variants(0).stats();
  const v1::Statistics& naive = run.result.variants(1).stats();
  *uncertainty = RelativeCiHalfWidth(fused) + RelativeCiHalfWidth(naive);
  return fused.median_seconds() / naive.median_seconds();
}

// First in the file, so that no profile has run in this process before its first benchmark.
TEST_F(ProfileGpuTest, LeavesLaterBenchmarksAsFastAsBefore) {
  v1::JobSpec compare = SoftmaxSpec(v1::JOB_KIND_BENCHMARK, {"fused", "naive"});
  compare.set_mode(v1::MEASURE_MODE_HOT);
  absl::StatusOr<JobRun> before = Run(compare, "before");
  ASSERT_TRUE(before.ok()) << before.status();
  v1::JobSpec spec = SoftmaxSpec(v1::JOB_KIND_PROFILE, {"fused"});
  spec.mutable_profile()->set_iterations(10);
  ASSERT_TRUE(Run(spec, "profile").ok());
  absl::StatusOr<JobRun> after = Run(compare, "after");
  ASSERT_TRUE(after.ok()) << after.status();
  double u_before = 0, u_after = 0;
  const double b = InterleavedRatio(*before, &u_before);
  const double a = InterleavedRatio(*after, &u_after);
  // A CUPTI left recording adds a fixed cost per launch, and naive launches more kernels than
  // fused: the ratio would move. The bound is what the two jobs' own intervals allow, three
  // times over, never below 1% (the intervals of a quiet GPU are narrower than its drift).
  const double tolerance = std::max(0.01, 3 * (u_before + u_after));
  std::printf(
      "softmax fused/naive hot median ratio before a profile %.4f (+-%.2f%%), after %.4f "
      "(+-%.2f%%): %+.2f%%, tolerance %.2f%%\n",
      b, 100 * u_before, a, 100 * u_after, 100 * (a / b - 1), 100 * tolerance);
  // CUPTI stays loaded but records nothing once the profile stops.
  EXPECT_NEAR(a / b, 1.0, tolerance);
}

TEST_F(ProfileGpuTest, RecordsLaunchesTimesIterationsKernelsInAParsableTrace) {
  // One iteration tells how many kernels one run of each variant launches.
  v1::JobSpec one = SoftmaxSpec(v1::JOB_KIND_PROFILE, {"naive", "fused"});
  one.mutable_profile()->set_iterations(1);
  absl::StatusOr<JobRun> single = Run(one, "one");
  ASSERT_TRUE(single.ok()) << single.status();
  const auto* single_trace = Artifact(*single, "trace.json");
  ASSERT_NE(single_trace, nullptr);
  const std::map<std::string, int> per_run =
      RecordedKernels(json::parse(Read(single_trace->path())));
  ASSERT_GE(per_run.at("naive"), 1);
  ASSERT_GE(per_run.at("fused"), 1);
  EXPECT_GT(per_run.at("naive"), per_run.at("fused"));

  constexpr int kIterations = 20;
  v1::JobSpec spec = one;
  spec.mutable_profile()->set_iterations(kIterations);
  setenv("KBENCH_PROFILE_KEEP_ACTIVITY", "1", 1);
  absl::StatusOr<JobRun> run = Run(spec, "twenty");
  unsetenv("KBENCH_PROFILE_KEEP_ACTIVITY");
  ASSERT_TRUE(run.ok()) << run.status();
  KeepArtifacts(*run, "softmax", {"activity.json", "trace.json", "summary.txt"});
  const auto* trace_file = Artifact(*run, "trace.json");
  ASSERT_NE(trace_file, nullptr);
  const json trace = json::parse(Read(trace_file->path()));  // throws (fails) if invalid
  const std::map<std::string, int> recorded = RecordedKernels(trace);
  EXPECT_EQ(recorded.at("naive"), kIterations * per_run.at("naive"));
  EXPECT_EQ(recorded.at("fused"), kIterations * per_run.at("fused"));

  // Every kernel has its launch arrow and its resources; NVML's power and clocks are counter
  // tracks beside the device's streams (issue 29).
  std::map<uint64_t, int> flow_starts;
  std::map<std::string, int> counters;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "s") flow_starts[e["id"].get<uint64_t>()]++;
    if (e["ph"] == "C") counters[e["name"].get<std::string>()]++;
  }
  EXPECT_GE(counters["GPU power"], 2);
  EXPECT_GE(counters["GPU clocks"], 2);
  std::printf("counter samples: %d power, %d clocks, %d temperature\n", counters["GPU power"],
              counters["GPU clocks"], counters["GPU temperature"]);
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e.value("cat", "") != "kernel") continue;
    EXPECT_TRUE(flow_starts.contains(e["args"]["correlation"].get<uint64_t>())) << e.dump();
    EXPECT_GT(e["args"]["registers per thread"].get<int>(), 0) << e.dump();
    EXPECT_GT(e["args"]["theoretical occupancy %"].get<double>(), 0) << e.dump();
  }

  const v1::ProfileResult& p = run->result.profile();
  int64_t calls = 0;
  for (const auto& k : p.kernels()) {
    calls += k.calls();
    EXPECT_GT(k.max_threads_per_block(), 0) << k.name();
    EXPECT_GT(k.theoretical_occupancy(), 0) << k.name();
    EXPECT_GT(k.registers_per_thread(), 0) << k.name();
  }
  EXPECT_EQ(calls, kIterations * (per_run.at("naive") + per_run.at("fused")));
  EXPECT_GT(p.gpu_busy_fraction(), 0.0);
  EXPECT_LE(p.gpu_busy_fraction(), 1.0);
  EXPECT_FALSE(p.categories().empty());
  std::printf("%s\n", Read(Artifact(*run, "summary.txt")->path()).c_str());
}

// CUPTI stamps its records through our timestamp callback, so every record, host or device, and
// every phase span lies between two reads of the trace clock taken around the job; on CUPTI's
// default CLOCK_REALTIME they would lie decades later. The trace's tracks never overlap
// partially on a real recording either.
TEST_F(ProfileGpuTest, RecordsEverythingOnTheTraceClockWithoutPartialOverlaps) {
  v1::JobSpec spec = SoftmaxSpec(v1::JOB_KIND_PROFILE, {"naive", "fused"});
  spec.mutable_profile()->set_iterations(5);
  setenv("KBENCH_PROFILE_KEEP_ACTIVITY", "1", 1);
  const uint64_t before = profile::TraceClockNow();
  absl::StatusOr<JobRun> run = Run(spec, "clock");
  const uint64_t after = profile::TraceClockNow();
  unsetenv("KBENCH_PROFILE_KEEP_ACTIVITY");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_NE(Artifact(*run, "activity.json"), nullptr);
  const json activity = json::parse(Read(Artifact(*run, "activity.json")->path()));
  int checked = 0;
  for (const char* section : {"kernels", "transfers", "api_calls", "syncs", "spans"}) {
    for (const json& r : activity[section]) {
      EXPECT_GE(r["start_ns"].get<uint64_t>(), before) << section << " " << r.dump();
      EXPECT_LE(r["end_ns"].get<uint64_t>(), after) << section << " " << r.dump();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  const json trace = json::parse(Read(Artifact(*run, "trace.json")->path()));
  EXPECT_NE(trace["otherData"]["clock"].get<std::string>().find("CLOCK_MONOTONIC_RAW"),
            std::string::npos);
  const std::vector<std::string> overlaps = profile::testing::PartialOverlaps(trace);
  EXPECT_TRUE(overlaps.empty()) << overlaps.size() << " overlaps, first: " << overlaps.front();
}

// What a recording says about launches, from its raw records (activity.json): per variant, the
// kernels each recorded iteration launched, and the GPU's gap between two back-to-back kernels
// of one iteration, its 90th percentile (naive launches five per iteration; on an H100 the
// gaps run 1.3-2.2 us, median 1.6, 90th percentile 1.8).
struct LaunchFacts {
  std::map<std::string, double> kernels_per_iteration;
  double gap_seconds = 0;
};

LaunchFacts ReadLaunchFacts(const json& activity) {
  auto by_start = [](const json& a, const json& b) {
    return a["start_ns"].get<uint64_t>() < b["start_ns"].get<uint64_t>();
  };
  std::vector<json> kernels(activity["kernels"].begin(), activity["kernels"].end());
  std::sort(kernels.begin(), kernels.end(), by_start);
  // The phase spans that follow one another (the "profile" span encloses its iterations).
  std::vector<json> spans;
  for (const json& span : activity["spans"]) {
    if (span["phase"] != "profile") spans.push_back(span);
  }
  std::sort(spans.begin(), spans.end(), by_start);
  LaunchFacts facts;
  std::map<std::string, int> iterations;
  for (const json& span : spans) {
    if (span["phase"] == "iteration") ++iterations[span["variant"].get<std::string>()];
  }
  // Each kernel belongs to the last span begun before it started: its launch was made there.
  std::vector<double> gaps;
  const json* previous = nullptr;
  const json* previous_span = nullptr;
  size_t next = 0;
  for (const json& k : kernels) {
    const uint64_t start = k["start_ns"].get<uint64_t>();
    while (next < spans.size() && spans[next]["start_ns"].get<uint64_t>() <= start) ++next;
    const json* span = next > 0 ? &spans[next - 1] : nullptr;
    if (span == nullptr || (*span)["phase"] != "iteration") {
      previous = nullptr;
      continue;
    }
    facts.kernels_per_iteration[(*span)["variant"].get<std::string>()] += 1;
    if (previous != nullptr && previous_span == span) {
      gaps.push_back(static_cast<double>(start - (*previous)["end_ns"].get<uint64_t>()) * 1e-9);
    }
    previous = &k;
    previous_span = span;
  }
  for (auto& [variant, n] : facts.kernels_per_iteration) n /= iterations[variant];
  if (!gaps.empty()) {
    const auto p90 = gaps.begin() + static_cast<std::ptrdiff_t>(0.9 * (gaps.size() - 1));
    std::nth_element(gaps.begin(), p90, gaps.end());
    facts.gap_seconds = *p90;
  }
  return facts;
}

// A profile sums each iteration's kernel durations; a hot benchmark times launches queued back
// to back, each kernel plus the GPU's gap before the next starts. So the benchmark's median
// lies between the profile's and the profile's plus one measured gap per kernel (fused on an
// H100: 45.8 us profiled, 48.2 us benchmarked, gap 1.8 us), each bound widened by what the two
// measurements can tell apart: both medians' intervals plus three times the benchmark's noise,
// never below 3%. The floor is above 2% because a kernel launched back to back also runs a
// little slower than the profile's isolated iterations (the previous kernel's writes still
// draining): fused measured 48.24 us against 45.75 + 1.79 us, 1.5% over.
TEST_F(ProfileGpuTest, BenchmarkMedianLiesBetweenTheProfiledKernelsAndTheirLaunchGaps) {
  v1::JobSpec spec = SoftmaxSpec(v1::JOB_KIND_PROFILE, {"naive", "fused"});
  spec.mutable_profile()->set_iterations(50);
  setenv("KBENCH_PROFILE_KEEP_ACTIVITY", "1", 1);
  absl::StatusOr<JobRun> profile = Run(spec, "profile");
  unsetenv("KBENCH_PROFILE_KEEP_ACTIVITY");
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_NE(Artifact(*profile, "activity.json"), nullptr);
  const LaunchFacts facts =
      ReadLaunchFacts(json::parse(Read(Artifact(*profile, "activity.json")->path())));
  ASSERT_GT(facts.gap_seconds, 0) << "no two kernels of one iteration were recorded";
  EXPECT_LT(facts.gap_seconds, 20e-6) << "kernels of one iteration did not run back to back";
  for (const auto& vr : profile->result.variants()) {
    v1::JobSpec bench = SoftmaxSpec(v1::JOB_KIND_BENCHMARK, {vr.variant()});
    bench.set_mode(v1::MEASURE_MODE_HOT);
    absl::StatusOr<JobRun> b = Run(bench, "bench_" + vr.variant());
    ASSERT_TRUE(b.ok()) << b.status();
    const v1::Statistics& timed = b->result.variants(0).stats();
    const double profiled = vr.stats().median_seconds();
    const double launches = facts.kernels_per_iteration.at(vr.variant());
    const double with_gaps = profiled + launches * facts.gap_seconds;
    const double tolerance =
        std::max(0.03, RelativeCiHalfWidth(timed) + RelativeCiHalfWidth(vr.stats()) +
                           3 * timed.relative_stddev());
    std::printf(
        "softmax/%s 4096x4096 f32: profile %.2f us per run (summed kernels, median of %d), "
        "%.0f kernels per run, launch gap %.2f us; benchmark (hot) median %.2f us; bounds "
        "[%.2f, %.2f] us at tolerance %.2f%%\n",
        vr.variant().c_str(), profiled * 1e6, static_cast<int>(vr.stats().samples()), launches,
        facts.gap_seconds * 1e6, timed.median_seconds() * 1e6, profiled * (1 - tolerance) * 1e6,
        with_gaps * (1 + tolerance) * 1e6, 100 * tolerance);
    if (tolerance > 0.3) {
      GTEST_SKIP() << "the GPU is too noisy now to test agreement (tolerance " << 100 * tolerance
                   << "%)";
    }
    EXPECT_GE(timed.median_seconds(), profiled * (1 - tolerance)) << vr.variant();
    EXPECT_LE(timed.median_seconds(), with_gaps * (1 + tolerance)) << vr.variant();
  }
}

TEST_F(ProfileGpuTest, NsightComputeReportsKeyMetricsAndItsReport) {
  absl::StatusOr<std::string> ncu = profile::FindNcu(profile::NcuSearchFromEnvironment());
  if (!ncu.ok()) GTEST_SKIP() << ncu.status();
  v1::JobSpec spec = SoftmaxSpec(v1::JOB_KIND_PROFILE, {"fused"});
  spec.mutable_profile()->set_iterations(5);
  spec.mutable_profile()->set_ncu(true);
  absl::StatusOr<JobRun> run = Run(spec, "ncu");
  ASSERT_TRUE(run.ok()) << run.status();
  KeepArtifacts(*run, "ncu", {"ncu_raw.csv", "ncu.log"});
  const v1::ProfileResult& p = run->result.profile();
  ASSERT_GE(p.ncu_size(), 1);
  ASSERT_GE(p.kernels_size(), 1);
  for (const auto& m : p.ncu()) {
    std::printf("ncu %s: %.2f us, DRAM %.1f%%, SM %.1f%%, occupancy %.1f%%, L2 hit %.1f%%\n",
                m.kernel().c_str(), m.duration_seconds() * 1e6, m.dram_throughput_percent(),
                m.sm_throughput_percent(), m.achieved_occupancy_percent(), m.l2_hit_rate_percent());
    EXPECT_GT(m.duration_seconds(), 0);
    // Same kernel, same clocks (--clock-control none): within a factor of 2 of CUPTI's time
    // (ncu flushes caches before each replay).
    EXPECT_GT(m.duration_seconds(), 0.5 * p.kernels(0).mean_seconds());
    EXPECT_LT(m.duration_seconds(), 2.0 * p.kernels(0).mean_seconds());
    EXPECT_GT(m.dram_throughput_percent(), 0);
    EXPECT_LE(m.dram_throughput_percent(), 100);
    EXPECT_GT(m.achieved_occupancy_percent(), 0);
    EXPECT_LE(m.achieved_occupancy_percent(), 100);
  }
  const auto* report = Artifact(*run, "ncu_fused.ncu-rep");
  ASSERT_NE(report, nullptr);
  struct stat st;
  ASSERT_EQ(stat(report->path().c_str(), &st), 0);
  EXPECT_GT(st.st_size, 0);
}

}  // namespace
}  // namespace kbench::executor

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], kbench::executor::profile::kNcuTargetFlag) == 0) {
      return kbench::executor::RunNcuTarget(argc, argv);
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
