// The profile pipeline: each variant is prepared, checked, warmed up and run `iterations`
// times under CUPTI, inside NVTX ranges; then the trace, the summary and (on request) Nsight
// Compute's metrics are produced from what was recorded.
#include "server/executor/profile/profile_job.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "server/common/artifact_write_error.h"
#include "server/common/spec_problem.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/measure/statistics.h"
#include "server/executor/profile/activity_json.h"
#include "server/executor/profile/attribution.h"
#include "server/executor/profile/chrome_trace.h"
#include "server/executor/profile/counter_sampler.h"
#include "server/executor/profile/cupti_collector.h"
#include "server/executor/profile/device_limits.h"
#include "server/executor/profile/ncu_runner.h"
#include "server/executor/profile/ncu_target.h"
#include "server/executor/profile/phase_recorder.h"
#include "server/executor/profile/summary.h"
#include "server/executor/progress_phase.h"

namespace kbench::executor {
namespace {

using profile::PhaseRecorder;

constexpr int kDefaultIterations = 10;
// Beyond this the trace grows past what a browser opens comfortably.
constexpr int kMaxIterations = 10000;
// Launches Nsight Compute profiles (each replayed once per metric pass).
constexpr int kNcuIterations = 3;
// Progress is reported at most this often during the recorded iterations.
constexpr double kProgressInterval = 0.25;

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

absl::Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return ArtifactWriteError(path, errno);
  f << content;
  f.close();
  if (!f) return ArtifactWriteError(path, errno);  // ENOSPC: re-run once the disk has room
  return absl::OkStatus();
}

void AddArtifact(JobRun* run, const std::string& name, const std::string& path,
                 const std::string& content_type) {
  internal::v1::ArtifactFile* a = &run->artifacts.emplace_back();
  a->set_name(name);
  a->set_path(path);
  a->set_content_type(content_type);
}

// Keeps a file name to [A-Za-z0-9_.-].
std::string FileSafe(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
  }
  return out;
}

struct Plan {
  std::vector<kernels::Problem> problems;
  int iterations = kDefaultIterations;
  uint64_t seed = 0;
  v1::MeasureMode mode = v1::MEASURE_MODE_UNSPECIFIED;
};

absl::StatusOr<Plan> MakePlan(DeviceRunner& runner, const v1::JobSpec& spec) {
  if (spec.variants().empty()) return absl::InvalidArgumentError("variants: none given");
  Plan plan;
  if (spec.profile().iterations() != 0) plan.iterations = spec.profile().iterations();
  if (plan.iterations < 1 || plan.iterations > kMaxIterations) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile.iterations: ", spec.profile().iterations(), " is outside [1, ",
                     kMaxIterations, "]"));
  }
  for (const std::string& name : spec.variants()) {
    KBENCH_ASSIGN_OR_RETURN(kernels::Problem problem, ProblemFromSpec(spec, name));
    KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&problem));
    plan.problems.push_back(std::move(problem));
  }
  plan.seed = spec.seed();
  if (plan.seed == 0) {
    plan.seed = std::random_device{}() | (uint64_t{std::random_device{}()} << 32) | 1;
  }
  plan.mode = spec.mode() == v1::MEASURE_MODE_UNSPECIFIED ? runner.default_mode() : spec.mode();
  return plan;
}

// What a tool's target process does (Nsight Compute, compute-sanitizer): the checked launch,
// then the warm-up and the iterations inside the range ncu filters on.
absl::StatusOr<JobRun> RunToolTargetJob(DeviceRunner& runner, const JobContext& context,
                                        const Plan& plan) {
  for (const kernels::Problem& problem : plan.problems) {
    KBENCH_ASSIGN_OR_RETURN(
        std::unique_ptr<PreparedVariant> pv,
        PrepareJobVariant(runner, context, problem, plan.seed, plan.mode, BufferPlacement{}));
    KBENCH_ASSIGN_OR_RETURN(const v1::Correctness check, CheckVariant(*pv, problem, plan.seed));
    if (!check.passed()) {
      return absl::FailedPreconditionError(
          absl::StrCat("correctness: ", problem.variant,
                       " does not match the float64 reference: ", check.detail()));
    }
    KBENCH_RETURN_IF_ERROR(pv->Warmup());
    profile::NvtxRange range(profile::kNcuRangeName);
    for (int i = 0; i < plan.iterations; ++i) KBENCH_RETURN_IF_ERROR(pv->RunOnce());
  }
  return JobRun{};
}

class CuptiRecorder : public profile::ActivityRecorder {
 public:
  explicit CuptiRecorder(std::unique_ptr<profile::CuptiCollector> collector)
      : collector_(std::move(collector)) {}
  uint64_t Now() override { return profile::CuptiCollector::Timestamp(); }
  void NoteLaunches(bool on) override { collector_->NoteLaunches(on); }
  absl::StatusOr<profile::ActivityLog> Stop() override { return collector_->Stop(); }

 private:
  std::unique_ptr<profile::CuptiCollector> collector_;
};

absl::StatusOr<std::unique_ptr<profile::ActivityRecorder>> StartCupti() {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<profile::CuptiCollector> collector,
                          profile::CuptiCollector::Start());
  return std::make_unique<CuptiRecorder>(std::move(collector));
}

// Progress for kbctl; `samples` counts recorded iterations in the "profile" phase.
void Report(const JobContext& context, v1::ProgressPhase phase, const std::string& variant,
            int64_t samples, double elapsed = 0) {
  if (!context.progress) return;
  v1::Progress p;
  SetProgressPhase(phase, &p);
  p.set_variant(variant);
  p.set_samples(samples);
  p.set_elapsed_seconds(elapsed);
  context.progress(p);
}

// Records every variant's phases while the activity recorder runs.
class ProfileRun {
 public:
  ProfileRun(DeviceRunner& runner, const JobContext& context, const Plan& plan,
             profile::ActivityRecorder* recorder)
      : runner_(runner), context_(context), plan_(plan), activity_(recorder), recorder_([recorder] {
          return recorder->Now();
        }) {}

  // Prepares, checks, warms up and records each variant in turn.
  absl::Status RecordVariants(JobRun* run) {
    for (const kernels::Problem& problem : plan_.problems) {
      KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<PreparedVariant> pv, PrepareAndCheck(problem, run));
      KBENCH_RETURN_IF_ERROR(WarmUp(*pv, problem.variant));
      KBENCH_RETURN_IF_ERROR(RecordIterations(*pv, problem.variant));
    }
    return absl::OkStatus();
  }

  const std::vector<profile::HostSpan>& spans() const { return recorder_.spans(); }

 private:
  // Adds the variant's result with its correctness; a variant that does not match the
  // reference fails the job. Every kernel of the variant runs in the check, so noting its
  // function there (for attributes the records lack) is enough.
  absl::StatusOr<std::unique_ptr<PreparedVariant>> PrepareAndCheck(const kernels::Problem& problem,
                                                                   JobRun* run) {
    const std::string& name = problem.variant;
    Report(context_, v1::PROGRESS_PHASE_CHECK, name, 0);
    activity_->NoteLaunches(true);
    absl::StatusOr<std::unique_ptr<PreparedVariant>> pv;
    absl::StatusOr<v1::Correctness> check;
    {
      PhaseRecorder::Scope scope = recorder_.Enter(profile::kPhasePrepare, name);
      pv = PrepareJobVariant(runner_, context_, problem, plan_.seed, plan_.mode, BufferPlacement{});
    }
    if (pv.ok()) {
      PhaseRecorder::Scope scope = recorder_.Enter(profile::kPhaseCheck, name);
      check = CheckVariant(**pv, problem, plan_.seed);
    }
    activity_->NoteLaunches(false);
    KBENCH_RETURN_IF_ERROR(pv.status());
    KBENCH_RETURN_IF_ERROR(check.status());
    v1::VariantResult* vr = run->result.add_variants();
    vr->set_variant(name);
    vr->set_mode(plan_.mode);
    *vr->mutable_correctness() = *check;
    if (!check->passed()) {
      return absl::FailedPreconditionError(
          absl::StrCat("correctness: ", context_.job->spec().kernel(), "/", name,
                       " does not match the float64 reference: ", check->detail()));
    }
    return pv;
  }

  absl::Status WarmUp(PreparedVariant& pv, const std::string& name) {
    Report(context_, v1::PROGRESS_PHASE_WARMUP, name, 0);
    PhaseRecorder::Scope scope = recorder_.Enter(profile::kPhaseWarmup, name);
    return pv.Warmup();
  }

  // The recorded iterations, each in its own span inside the variant's profile phase.
  absl::Status RecordIterations(PreparedVariant& pv, const std::string& name) {
    PhaseRecorder::Scope phase = recorder_.Enter(profile::kPhaseProfile, name);
    const Clock::time_point start = Clock::now();
    Clock::time_point last_report = start;
    Report(context_, v1::PROGRESS_PHASE_PROFILE, name, 0);
    for (int i = 0; i < plan_.iterations; ++i) {
      if (context_.cancelled != nullptr && context_.cancelled->load()) {
        return absl::CancelledError("cancelled during profiling");
      }
      {
        PhaseRecorder::Scope scope = recorder_.Enter(profile::kPhaseIteration, name, i);
        KBENCH_RETURN_IF_ERROR(pv.RunOnce());
      }
      if (i + 1 == plan_.iterations || SecondsSince(last_report) > kProgressInterval) {
        last_report = Clock::now();
        Report(context_, v1::PROGRESS_PHASE_PROFILE, name, i + 1, SecondsSince(start));
      }
    }
    return absl::OkStatus();
  }

  DeviceRunner& runner_;
  const JobContext& context_;
  const Plan& plan_;
  profile::ActivityRecorder* activity_;
  PhaseRecorder recorder_;
};

// Each variant's result from its recorded iterations: the GPU time of one iteration (all its
// kernels and transfers, summed) is the sample.
void FillVariantResults(const profile::ProfileSummary& summary, const Plan& plan,
                        DeviceRunner& runner, JobRun* run) {
  for (int i = 0; i < run->result.variants_size(); ++i) {
    v1::VariantResult* vr = run->result.mutable_variants(i);
    const kernels::Problem& problem = plan.problems[static_cast<size_t>(i)];
    const profile::VariantProfile* vp = nullptr;
    for (const auto& v : summary.variants) {
      if (v.variant == vr->variant()) vp = &v;
    }
    if (vp == nullptr || vp->iteration_gpu_seconds.empty()) continue;
    const measure::SampleStatistics s = measure::ComputeStatistics(vp->iteration_gpu_seconds);
    v1::Statistics* st = vr->mutable_stats();
    st->set_min_seconds(s.min);
    st->set_median_seconds(s.median);
    st->set_mean_seconds(s.mean);
    st->set_stddev_seconds(s.stddev);
    st->set_max_seconds(s.max);
    st->set_p10_seconds(s.p10);
    st->set_p90_seconds(s.p90);
    st->set_p99_seconds(s.p99);
    st->set_relative_stddev(s.relative_stddev);
    st->set_median_ci_low_seconds(s.median_ci_low);
    st->set_median_ci_high_seconds(s.median_ci_high);
    st->set_samples(s.samples);
    st->set_launches_per_sample(1);
    double measured = 0;
    for (double t : vp->iteration_gpu_seconds) measured += t;
    vr->set_measured_seconds(measured);
    vr->set_wall_seconds(vp->wall_seconds);
    vr->set_stop_reason(
        absl::StrCat("profile: ", vp->iteration_gpu_seconds.size(), " iterations recorded"));
    const kernels::Operation* op = kernels::FindOperation(problem.op);
    if (op == nullptr) continue;
    const kernels::Cost cost = op->cost(problem);
    vr->set_bytes(cost.bytes);
    vr->set_flops(cost.flops);
    if (s.median > 0) {
      vr->set_bytes_per_second(static_cast<double>(cost.bytes) / s.median);
      vr->set_flops_per_second(static_cast<double>(cost.flops) / s.median);
      const double copy_bw = runner.info().copy_bandwidth_bytes_per_second();
      if (copy_bw > 0) vr->set_fraction_of_copy_bandwidth(vr->bytes_per_second() / copy_bw);
      const double peak = runner.PeakFlops(problem.dtype);
      if (peak > 0) vr->set_fraction_of_peak_flops(vr->flops_per_second() / peak);
    }
  }
  const double first =
      run->result.variants_size() > 0 ? run->result.variants(0).stats().median_seconds() : 0;
  for (auto& vr : *run->result.mutable_variants()) {
    if (vr.stats().median_seconds() > 0)
      vr.set_speedup_vs_first(first / vr.stats().median_seconds());
  }
}

std::string Title(const v1::JobSpec& spec, const Plan& plan, const v1::DeviceInfo& device) {
  return absl::StrCat("Profile of ", spec.kernel(), " [", absl::StrJoin(spec.shape(), "x"),
                      "] variants ", absl::StrJoin(spec.variants(), ", "), " on ", device.id(),
                      " (", device.name(), "): ", plan.iterations,
                      " recorded iterations per variant");
}

absl::Status RunNcuPhase(const JobContext& context, const Plan& plan, const std::string& ncu,
                         JobRun* run) {
  const internal::v1::RunJob& job = *context.job;
  const std::string& variant = plan.problems.front().variant;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return absl::InternalError("profile.ncu: no current CUDA device");
  }
  KBENCH_ASSIGN_OR_RETURN(const std::string self, profile::SelfExecutable());
  const std::string dir = job.artifact_dir();
  const std::string spec_path = dir + "/ncu_target.textproto";
  KBENCH_RETURN_IF_ERROR(
      profile::WriteToolTargetSpec(job, variant, kNcuIterations, device, spec_path));
  profile::NcuRequest request;
  request.ncu = ncu;
  request.target_executable = self;
  request.target_spec_path = spec_path;
  request.report_base = absl::StrCat(dir, "/ncu_", FileSafe(variant));
  request.log_path = dir + "/ncu.log";
  request.csv_path = dir + "/ncu_raw.csv";
  absl::StatusOr<std::vector<v1::NcuMetrics>> metrics = profile::RunNcu(request, context.cancelled);
  unlink(spec_path.c_str());  // whether or not ncu succeeded
  KBENCH_RETURN_IF_ERROR(metrics.status());
  for (v1::NcuMetrics& m : *metrics) *run->result.mutable_profile()->add_ncu() = std::move(m);
  AddArtifact(run, absl::StrCat("ncu_", FileSafe(variant), ".ncu-rep"),
              request.report_base + ".ncu-rep", "application/octet-stream");
  AddArtifact(run, "ncu_raw.csv", request.csv_path, "text/csv");
  AddArtifact(run, "ncu.log", request.log_path, "text/plain");
  return absl::OkStatus();
}

// Before any device work: a job asking for ncu on a host without it fails at once. Empty when
// the job does not ask for ncu.
absl::StatusOr<std::string> FindNcuIfAsked(const v1::JobSpec& spec) {
  if (!spec.profile().ncu()) return std::string();
  return profile::FindNcu(profile::NcuSearchFromEnvironment());
}

// Runs every variant under the recorder and returns what it recorded, phase spans included;
// the device's clocks are read on either side.
absl::StatusOr<profile::ActivityLog> RecordActivity(
    DeviceRunner& runner, const JobContext& context, const Plan& plan,
    const profile::ActivityRecorderFactory& start_recorder, JobRun* run) {
  v1::Environment* env = run->result.mutable_environment();
  runner.ReadClocks(env->mutable_before());
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<profile::ActivityRecorder> recorder, start_recorder());
  // The device's counters on the records' clock, for the trace's counter tracks.
  std::optional<profile::CounterSampler> counters;
  if (ConditionsReader* reader = runner.conditions_reader()) {
    counters.emplace(reader, [r = recorder.get()] { return r->Now(); });
  }
  ProfileRun profile_run(runner, context, plan, recorder.get());
  KBENCH_RETURN_IF_ERROR(profile_run.RecordVariants(run));
  std::vector<profile::CounterSample> counter_samples;
  if (counters) counter_samples = counters->Stop();
  KBENCH_ASSIGN_OR_RETURN(profile::ActivityLog log, recorder->Stop());
  log.counters = std::move(counter_samples);
  runner.ReadClocks(env->mutable_after());
  if (log.records_over_limit > 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("profile: the recording passed ", profile::kMaxActivityRecords,
                     " activity records (", log.records_over_limit,
                     " more were not kept), more than a trace can hold; lower profile.iterations (",
                     plan.iterations, ") or profile fewer variants at once"));
  }
  if (log.dropped_records > 0) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "profile: CUPTI dropped ", log.dropped_records,
        " activity records, so the summary would be incomplete; lower profile.iterations (",
        plan.iterations, ")"));
  }
  log.spans = profile_run.spans();
  return log;
}

absl::Status WriteArtifact(const std::string& name, const std::string& content,
                           const std::string& content_type, const JobContext& context,
                           JobRun* run) {
  const std::string path = context.job->artifact_dir() + "/" + name;
  KBENCH_RETURN_IF_ERROR(WriteFile(path, content));
  AddArtifact(run, name, path, content_type);
  return absl::OkStatus();
}

profile::TraceOptions MakeTraceOptions(const JobContext& context, const Plan& plan,
                                       DeviceRunner& runner,
                                       const std::optional<profile::DeviceLimits>& limits) {
  const v1::JobSpec& spec = context.job->spec();
  profile::TraceOptions options;
  options.limits = limits;
  options.metadata = {{"job_id", context.job->job_id()},
                      {"kernel", spec.kernel()},
                      {"variants", absl::StrJoin(spec.variants(), ",")},
                      {"shape", absl::StrJoin(spec.shape(), "x")},
                      {"device", runner.info().id()},
                      {"device_name", runner.info().name()},
                      {"iterations", absl::StrCat(plan.iterations)},
                      {"seed", absl::StrCat(plan.seed)}};
  return options;
}

// trace.json, summary.txt, summary.json, and activity.json with KBENCH_PROFILE_KEEP_ACTIVITY=1
// (the raw records, to keep a recording as a test fixture).
absl::Status WriteArtifacts(const JobContext& context, const Plan& plan, DeviceRunner& runner,
                            const profile::ActivityLog& log,
                            const profile::AttributedLog& attribution,
                            const std::optional<profile::DeviceLimits>& limits,
                            const profile::ProfileSummary& summary, JobRun* run) {
  const profile::TraceOptions trace_options = MakeTraceOptions(context, plan, runner, limits);
  const std::string trace_path = context.job->artifact_dir() + "/trace.json";
  KBENCH_RETURN_IF_ERROR(profile::WriteChromeTrace(log, attribution, trace_options, trace_path));
  AddArtifact(run, "trace.json", trace_path, "application/json");
  const std::string title = Title(context.job->spec(), plan, runner.info());
  KBENCH_RETURN_IF_ERROR(WriteArtifact("summary.txt", profile::FormatSummaryText(summary, title),
                                       "text/plain", context, run));
  KBENCH_RETURN_IF_ERROR(WriteArtifact("summary.json", profile::SummaryToJson(summary).dump(2),
                                       "application/json", context, run));
  const char* keep = std::getenv("KBENCH_PROFILE_KEEP_ACTIVITY");
  if (keep == nullptr || std::string(keep) != "1") return absl::OkStatus();
  return WriteArtifact("activity.json", profile::ActivityLogToJson(log).dump(), "application/json",
                       context, run);
}

}  // namespace

absl::StatusOr<JobRun> RunProfileJob(DeviceRunner& runner, const JobContext& context) {
  return profile::RunProfileJobWith(runner, context, &StartCupti);
}

absl::StatusOr<JobRun> profile::RunProfileJobWith(DeviceRunner& runner, const JobContext& context,
                                                  const ActivityRecorderFactory& start_recorder) {
  const v1::JobSpec& spec = context.job->spec();
  KBENCH_ASSIGN_OR_RETURN(const Plan plan, MakePlan(runner, spec));
  if (profile::InNcuTargetMode()) return RunToolTargetJob(runner, context, plan);
  KBENCH_ASSIGN_OR_RETURN(const std::string ncu, FindNcuIfAsked(spec));

  JobRun run;
  runner.FillEnvironment(run.result.mutable_environment());
  run.result.mutable_environment()->set_seed(plan.seed);
  KBENCH_ASSIGN_OR_RETURN(const profile::ActivityLog log,
                          RecordActivity(runner, context, plan, start_recorder, &run));

  const profile::AttributedLog attribution = profile::Attribute(log);
  const std::optional<profile::DeviceLimits> limits = profile::CurrentDeviceLimits();
  const profile::ProfileSummary summary =
      profile::Summarize(log, attribution, {.operation = spec.kernel(), .limits = limits});
  KBENCH_RETURN_IF_ERROR(
      WriteArtifacts(context, plan, runner, log, attribution, limits, summary, &run));
  profile::FillProfileResult(summary, run.result.mutable_profile());
  FillVariantResults(summary, plan, runner, &run);

  if (!ncu.empty()) {
    Report(context, v1::PROGRESS_PHASE_NCU, plan.problems.front().variant, 0);
    KBENCH_RETURN_IF_ERROR(RunNcuPhase(context, plan, ncu, &run));
  }
  return run;
}

}  // namespace kbench::executor
