// The benchmark pipeline shared by the cpu and CUDA executors.
#include "server/executor/benchmark_job.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/csv_cell.h"
#include "common/placement_limits.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "kernels/check.h"
#include "server/common/artifact_write_error.h"
#include "server/common/spec_problem.h"
#include "server/executor/cheat_checks.h"
#include "server/executor/conditions/sampling_conditions.h"
#include "server/executor/energy_phase.h"
#include "server/executor/measure/statistics.h"
#include "server/executor/placements.h"
#include "server/executor/progress_phase.h"
#include "server/executor/sealed_checks.h"

namespace kbench::executor {
namespace {

// The samples a result carries for regression verdicts (`kbctl diff`): all of them up to this
// many, else every stride-th, which keeps their distribution and bounds a result's size
// (10000 doubles = 80 KB per variant).
constexpr size_t kMaxResultSamples = 10000;

constexpr int64_t kSampledElements = 4096;
// Hot mode: a host that needs this fraction of the device time to enqueue a batch is what sets
// the time (issue 15, item 6): the device waits for launches.
constexpr double kHostBoundFraction = 0.8;
// Graph mode: the rotated buffer sets must move at least twice the L2 between two uses of a
// set (BufferSetsForRotation); below that, data stays in L2.
constexpr double kMinRotationOverL2 = 2.0;

// One stream of samples: a variant at one of its placements (1-based, as printed).
struct SampleStream {
  std::string variant;
  int placement = 1;
  const measure::VariantSamples* samples = nullptr;
};

absl::Status WriteSamplesCsv(const std::string& path, const std::vector<SampleStream>& all) {
  std::ofstream f(path);
  if (!f) return ArtifactWriteError(path, errno);
  f << "variant,sample,seconds,launches,seconds_per_launch,sm_clock_mhz,host_enqueue_seconds,"
       "placement\n";
  for (const SampleStream& stream : all) {
    const measure::VariantSamples& vs = *stream.samples;
    for (size_t i = 0; i < vs.kept.size(); ++i) {
      const measure::Sample& s = vs.kept[i];
      f << absl::StrFormat("%s,%d,%.9e,%d,%.9e,%.1f,%.9e,%d\n", CsvCell(stream.variant), i,
                           s.seconds, s.launches, s.per_launch(), s.sm_clock_mhz,
                           s.host_enqueue_seconds, stream.placement);
    }
  }
  f.close();
  if (!f) return ArtifactWriteError(path, errno);  // ENOSPC: re-run once the disk has room
  return absl::OkStatus();
}

double Median(std::vector<double> v) { return measure::ComputeStatistics(std::move(v)).median; }

// Hot mode's host time against device time, per sample (batch).
void DescribeHostEnqueue(const measure::VariantSamples& vs, v1::VariantResult* vr) {
  std::vector<double> host, device;
  for (const measure::Sample& s : vs.kept) {
    if (s.host_enqueue_seconds <= 0) continue;
    host.push_back(s.host_enqueue_seconds);
    device.push_back(s.seconds);
  }
  if (host.empty()) return;
  const double host_median = Median(host);
  vr->set_host_enqueue_seconds(host_median);
  vr->set_host_bound(host_median >= kHostBoundFraction * Median(device));
}

void DescribeDrift(const measure::VariantSamples& vs, v1::VariantResult* vr) {
  const measure::DriftCheck d = measure::CheckDrift(vs.per_launch_seconds());
  vr->set_drift_checked(d.checked);
  vr->set_drifted(d.drifted);
  vr->set_first_half_median_seconds(d.first_half_median);
  vr->set_second_half_median_seconds(d.second_half_median);
}

bool ThrottledDuringRun(const v1::Environment& env, const measure::VariantSamples& vs) {
  if (vs.discarded > 0) return true;
  if (env.violation_counters_read()) {
    return env.power_violation_seconds() + env.thermal_violation_seconds() +
               env.board_limit_violation_seconds() + env.reliability_violation_seconds() >
           0;
  }
  return env.after().throttle_reasons() != 0;
}

// Each input's values at the positions sampled in output `o`, for the copied-input detector.
void KeepInputsAtSampledPositions(const kernels::HostTensors& inputs, size_t o,
                                  int64_t output_elements, Reference* ref) {
  kernels::HostTensors& at = ref->sampled_inputs.emplace_back(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (static_cast<int64_t>(inputs[k].size()) != output_elements) continue;
    for (int64_t index : ref->indices[o]) at[k].push_back(inputs[k][index]);
  }
}

// Per input, its values at the positions compared in output `o` (empty where its element
// count differs from the output's: it cannot have been copied there).
std::vector<std::span<const double>> InputsAtComparedPositions(const Reference& ref, size_t o,
                                                               size_t compared) {
  const kernels::HostTensors& inputs = ref.sampled ? ref.sampled_inputs.at(o) : ref.inputs;
  std::vector<std::span<const double>> at;
  for (const std::vector<double>& in : inputs) {
    at.push_back(in.size() == compared ? std::span<const double>(in) : std::span<const double>());
  }
  return at;
}

}  // namespace

void KeepSamples(const std::vector<double>& per_launch, v1::VariantResult* vr) {
  const size_t stride = (per_launch.size() + kMaxResultSamples - 1) / kMaxResultSamples;
  vr->set_sample_stride(static_cast<int64_t>(std::max<size_t>(stride, 1)));
  for (size_t i = 0; i < per_launch.size(); i += std::max<size_t>(stride, 1)) {
    vr->add_sample_seconds(per_launch[i]);
  }
}

measure::StoppingCriteria CriteriaFromSpec(const v1::StoppingCriteria& s) {
  measure::StoppingCriteria c;
  if (s.max_noise() > 0) c.max_noise = s.max_noise();
  if (s.min_samples() > 0) c.min_samples = s.min_samples();
  if (s.min_time_seconds() > 0) c.min_time_seconds = s.min_time_seconds();
  if (s.timeout_seconds() > 0) c.timeout_seconds = s.timeout_seconds();
  return c;
}

v1::HarnessStopCriterion StopCriterionToProto(measure::StopCriterion c) {
  switch (c) {
    case measure::StopCriterion::kMedianPrecision:
      return v1::HARNESS_STOP_CRITERION_MEDIAN_PRECISION;
    case measure::StopCriterion::kRelativeStddev:
      return v1::HARNESS_STOP_CRITERION_RELATIVE_STDDEV;
    case measure::StopCriterion::kNoiseStable:
      return v1::HARNESS_STOP_CRITERION_NOISE_STABLE;
    case measure::StopCriterion::kTimeout:
      return v1::HARNESS_STOP_CRITERION_TIMEOUT;
    case measure::StopCriterion::kNone:
      break;
  }
  return v1::HARNESS_STOP_CRITERION_UNSPECIFIED;
}

void FillStatistics(const measure::SampleStatistics& s, int64_t launches, v1::Statistics* out) {
  out->set_min_seconds(s.min);
  out->set_median_seconds(s.median);
  out->set_mean_seconds(s.mean);
  out->set_stddev_seconds(s.stddev);
  out->set_max_seconds(s.max);
  out->set_p10_seconds(s.p10);
  out->set_p90_seconds(s.p90);
  out->set_p99_seconds(s.p99);
  out->set_relative_stddev(s.relative_stddev);
  out->set_median_ci_low_seconds(s.median_ci_low);
  out->set_median_ci_high_seconds(s.median_ci_high);
  out->set_samples(s.samples);
  out->set_launches_per_sample(launches);
  out->set_unit(launches > 1 ? v1::HARNESS_STATISTIC_UNIT_BATCH_MEAN
                             : v1::HARNESS_STATISTIC_UNIT_LAUNCH);
}

absl::StatusOr<Reference> ComputeReference(const kernels::Problem& problem,
                                           kernels::HostTensors inputs, uint64_t seed) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("unknown operation " + problem.op);
  // A collective's reference is per rank (kernels/ops/collectives.h): its jobs run on a gang
  // (cuda/collective_job.h), never through this one-device pipeline.
  if (!op->reference) {
    return absl::FailedPreconditionError(
        absl::StrCat(problem.op, " runs on several devices; it has no one-device reference"));
  }
  const kernels::Layout layout = op->layout(problem);
  Reference ref;
  ref.tolerance = op->tolerance(problem);
  ref.defect_thresholds = kernels::DefectThresholdsFor(problem.dtype);
  ref.input_seed = seed;
  ref.sampled = op->reference_element &&
                static_cast<double>(op->cost(problem).flops) > kFullReferenceFlopLimit;
  ref.values.resize(layout.outputs.size());
  if (!ref.sampled) {
    for (size_t o = 0; o < layout.outputs.size(); ++o) {
      ref.values[o].assign(layout.outputs[o].elements, 0);
    }
    op->reference(problem, inputs, &ref.values);
    if (op->error_scale) {
      ref.scales.resize(layout.outputs.size());
      for (size_t o = 0; o < layout.outputs.size(); ++o) {
        ref.scales[o].assign(layout.outputs[o].elements, 0);
      }
      op->error_scale(problem, inputs, &ref.scales);
    }
    ref.inputs = std::move(inputs);
  } else {
    std::mt19937_64 rng(seed ^ 0x5eed);
    ref.indices.resize(layout.outputs.size());
    for (size_t o = 0; o < layout.outputs.size(); ++o) {
      const int64_t n = layout.outputs[o].elements;
      std::uniform_int_distribution<int64_t> pick(0, n - 1);
      for (int64_t i = 0; i < std::min(n, kSampledElements); ++i) {
        const int64_t index = pick(rng);
        ref.indices[o].push_back(index);
        ref.values[o].push_back(op->reference_element(problem, inputs, o, index));
      }
      KeepInputsAtSampledPositions(inputs, o, n, &ref);
    }
  }
  return ref;
}

namespace {

// The first degenerate output, its message naming the output when there are several.
kernels::DefectFinding FindDefect(const Reference& reference, size_t o, std::span<const double> got,
                                  std::span<const double> want) {
  kernels::DefectFinding f = kernels::FindOutputDefect(
      got, want, InputsAtComparedPositions(reference, o, got.size()), reference.defect_thresholds);
  if (f.defect != kernels::OutputDefect::kNone && reference.values.size() > 1) {
    f.message = absl::StrCat("output ", o, ": ", f.message);
  }
  return f;
}

std::string DescribeCheck(const Reference& reference, const CheckedOutput& out,
                          const kernels::CheckResult& r, const kernels::DefectFinding& defect) {
  std::string detail = r.detail;
  if (defect.defect != kernels::OutputDefect::kNone) {
    detail = detail.empty() ? absl::StrFormat("%s (relative L2 error %.3g, within tolerance %.3g)",
                                              defect.message, r.relative_l2_error, r.tolerance)
                            : absl::StrCat(defect.message, "; ", detail);
  }
  if (out.unwritten > 0) {
    detail = absl::StrCat(out.unwritten, " output elements never written",
                          detail.empty() ? "" : "; ", detail);
  }
  if (reference.sampled) {
    absl::StrAppend(&detail, detail.empty() ? "" : "; ", "checked on a random sample");
  }
  return detail;
}

}  // namespace

v1::Correctness CompareWithReference(const Reference& reference, const CheckedOutput& out) {
  std::vector<double> got, want, scale;
  kernels::DefectFinding defect;
  for (size_t o = 0; o < reference.values.size() && o < out.outputs.size(); ++o) {
    const size_t got_begin = got.size(), want_begin = want.size();
    if (reference.sampled) {
      for (int64_t index : reference.indices[o]) got.push_back(out.outputs[o][index]);
    } else {
      got.insert(got.end(), out.outputs[o].begin(), out.outputs[o].end());
    }
    want.insert(want.end(), reference.values[o].begin(), reference.values[o].end());
    if (o < reference.scales.size()) {
      scale.insert(scale.end(), reference.scales[o].begin(), reference.scales[o].end());
    } else {
      scale.resize(want.size(), 0.0);
    }
    if (defect.defect == kernels::OutputDefect::kNone) {
      defect = FindDefect(reference, o, std::span<const double>(got).subspan(got_begin),
                          std::span<const double>(want).subspan(want_begin));
    }
  }
  const kernels::CheckResult r = kernels::CompareRelativeL2(got, want, reference.tolerance, scale);
  v1::Correctness c;
  c.set_checked(true);
  c.set_passed(r.passed && out.unwritten == 0 && got.size() == want.size() &&
               defect.defect == kernels::OutputDefect::kNone);
  c.set_relative_l2_error(r.relative_l2_error);
  c.set_tolerance(reference.tolerance);
  c.set_nan_count(r.nan_count);
  c.set_unwritten_count(out.unwritten);
  c.set_elements_checked(r.elements_checked);
  c.set_output_defect(ToProto(defect.defect));
  c.set_input_seed(reference.input_seed);
  c.set_detail(DescribeCheck(reference, out, r, defect));
  return c;
}

absl::StatusOr<std::unique_ptr<PreparedVariant>> PrepareJobVariant(
    DeviceRunner& runner, const JobContext& context, const kernels::Problem& problem, uint64_t seed,
    v1::MeasureMode mode, const BufferPlacement& placement) {
  if (!kernels::IsUserVariantName(problem.variant)) {
    return runner.Prepare(problem, seed, mode, placement);
  }
  for (const v1::UserKernel& uk : context.job->spec().user_kernels()) {
    if (uk.name() == problem.variant) {
      return runner.PrepareUserVariant(problem, uk, seed, mode, placement,
                                       context.job->artifact_dir(), context.cancelled);
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("variants: '", problem.variant, "' names no user kernel of the job"));
}

absl::StatusOr<v1::Correctness> CheckVariant(PreparedVariant& variant,
                                             const kernels::Problem& problem, uint64_t seed) {
  KBENCH_ASSIGN_OR_RETURN(const kernels::HostTensors inputs, variant.Inputs());
  KBENCH_ASSIGN_OR_RETURN(const Reference reference, ComputeReference(problem, inputs, seed));
  KBENCH_ASSIGN_OR_RETURN(const CheckedOutput out, variant.RunChecked());
  return CompareWithReference(reference, out);
}

namespace {

// One variant of the job, from preparation to its result: set up once per buffer placement
// (JobSpec.placements; one by default), every copy checked and sampled, pooled into one result.
struct VariantRun {
  std::string name;
  kernels::Problem problem;
  std::vector<std::unique_ptr<PreparedVariant>> prepared;  // one per placement
  int result_index = 0;
  // The sampler's streams of this variant, one per placement, into BenchmarkRun::sampled_.
  size_t first_stream = 0;
};

// " at placement k of n" where a job has several placements (k 0-based), else "".
std::string PlacementSuffix(size_t k, size_t n) {
  return n > 1 ? absl::StrCat(" at placement ", k + 1, " of ", n) : "";
}

// The steps of one benchmark job, in the order RunBenchmarkJob calls them (the outline of
// nvbench's measure_cold: one level of abstraction per step).
class BenchmarkRun {
 public:
  BenchmarkRun(DeviceRunner& runner, const JobContext& context)
      : runner_(runner), context_(context), spec_(context.job->spec()) {}

  absl::Status Initialize();
  absl::Status PrepareAndCheckVariants();
  absl::Status WarmUp();
  absl::Status SampleInterleaved();
  absl::Status CheckSealedSamples();
  absl::Status CheckTimedLaunches();
  absl::Status MeasureEnergy();
  void Summarize();
  absl::Status JudgeFloors();
  void PublishCheckSeeds();
  absl::Status WriteSamplesArtifact();
  JobRun TakeRun() { return std::move(run_); }

 private:
  void Report(v1::ProgressPhase phase, const std::string& variant, int64_t samples = 0,
              double noise = 0, double elapsed = 0) const;
  absl::Status FailCorrectness(const VariantRun& v, const v1::Correctness& c,
                               const std::string& which) const;
  void SummarizeVariant(size_t i, double first_median);
  // Fills every placement's inputs from `seed`; the float64 reference of the first's (the same
  // values in each).
  absl::StatusOr<Reference> FreshInputs(VariantRun& v, uint64_t seed) const;
  // The stream of samples variant `i` took at each of its placements.
  std::vector<const measure::VariantSamples*> StreamsOf(size_t i) const;
  std::string StreamName(const VariantRun& v, size_t placement) const;
  // The sampling window's conditions (issue 29): the clean stamp and the thermal gate.
  SamplingConditions MakeSamplingConditions() const;

  DeviceRunner& runner_;
  const JobContext& context_;
  const v1::JobSpec& spec_;
  // The timed inputs' seed (the spec's, or drawn), then the secret seeds of the checked run's
  // and the timed check's inputs.
  uint64_t seed_ = 0;
  uint64_t check_seed_ = 0;
  uint64_t timed_check_seed_ = 0;
  // Every timed sample's seeds, read-back positions and checked subset come from this
  // (sealed_samples.h); published only after the run.
  uint64_t sample_secret_ = 0;
  v1::MeasureMode mode_ = v1::MEASURE_MODE_UNSPECIFIED;
  std::vector<BufferPlacement> placements_;
  JobRun run_;
  std::vector<VariantRun> variants_;
  // Per variant, per placement, as the sampler took them.
  std::vector<measure::VariantSamples> sampled_;
  // Per sample stream, in the sampler's order.
  std::vector<std::unique_ptr<SealedStream>> sealed_;
};

void BenchmarkRun::Report(v1::ProgressPhase phase, const std::string& variant, int64_t samples,
                          double noise, double elapsed) const {
  ReportProgress(context_.progress, phase, variant, samples, noise, elapsed);
}

absl::Status BenchmarkRun::FailCorrectness(const VariantRun& v, const v1::Correctness& c,
                                           const std::string& which) const {
  return absl::FailedPreconditionError(absl::StrCat("correctness: ", spec_.kernel(), "/", v.name,
                                                    which,
                                                    " does not match the float64 "
                                                    "reference: ",
                                                    c.detail()));
}

absl::Status BenchmarkRun::Initialize() {
  if (spec_.variants().empty()) return absl::InvalidArgumentError("variants: none given");
  seed_ = spec_.seed();
  if (seed_ == 0) seed_ = DrawCheckSeed();
  check_seed_ = DrawCheckSeed();
  timed_check_seed_ = DrawCheckSeed();
  sample_secret_ = DrawCheckSeed();
  mode_ = spec_.mode() == v1::MEASURE_MODE_UNSPECIFIED ? runner_.default_mode() : spec_.mode();
  KBENCH_RETURN_IF_ERROR(CheckPlacementCount(spec_.placements()));
  // A ranked run's gaps come from the secret: a submitter cannot pick a seed whose layout suits
  // their kernel (kbenchd fixed the rest of the protocol at submit).
  if (spec_.ranked()) mode_ = v1::MEASURE_MODE_COLD;
  placements_ = DrawPlacements(spec_.placements(), spec_.ranked() ? sample_secret_ : seed_);
  v1::Environment* env = run_.result.mutable_environment();
  runner_.FillEnvironment(env);
  env->set_seed(seed_);
  runner_.ReadClocks(env->mutable_before());
  return absl::OkStatus();
}

absl::Status BenchmarkRun::PrepareAndCheckVariants() {
  for (const std::string& name : spec_.variants()) {
    VariantRun& v = variants_.emplace_back();
    v.name = name;
    KBENCH_ASSIGN_OR_RETURN(v.problem, ProblemFromSpec(spec_, name));
    KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&v.problem));
    Report(v1::PROGRESS_PHASE_CHECK, name);
    // A user kernel (issue 10) goes through the same checks and sampling as catalogue variants.
    for (const BufferPlacement& placement : placements_) {
      KBENCH_ASSIGN_OR_RETURN(
          v.prepared.emplace_back(),
          PrepareJobVariant(runner_, context_, v.problem, seed_, mode_, placement));
    }
    v1::VariantResult* vr = run_.result.add_variants();
    v.result_index = run_.result.variants_size() - 1;
    vr->set_variant(name);
    vr->set_mode(mode_);
    // Checked on inputs from the secret seed at every placement, then timed on the spec's.
    KBENCH_ASSIGN_OR_RETURN(const Reference reference, FreshInputs(v, check_seed_));
    for (size_t p = 0; p < v.prepared.size(); ++p) {
      KBENCH_ASSIGN_OR_RETURN(const CheckedOutput out, v.prepared[p]->RunChecked());
      KBENCH_RETURN_IF_ERROR(v.prepared[p]->RegenerateInputs(seed_));
      *vr->mutable_correctness() = CompareWithReference(reference, out);
      if (!vr->correctness().passed()) {
        return FailCorrectness(v, vr->correctness(), PlacementSuffix(p, v.prepared.size()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Reference> BenchmarkRun::FreshInputs(VariantRun& v, uint64_t seed) const {
  for (const std::unique_ptr<PreparedVariant>& prepared : v.prepared) {
    KBENCH_RETURN_IF_ERROR(prepared->RegenerateInputs(seed));
  }
  KBENCH_ASSIGN_OR_RETURN(kernels::HostTensors inputs, v.prepared.front()->Inputs());
  return ComputeReference(v.problem, std::move(inputs), seed);
}

std::vector<const measure::VariantSamples*> BenchmarkRun::StreamsOf(size_t i) const {
  std::vector<const measure::VariantSamples*> streams;
  for (size_t p = 0; p < variants_[i].prepared.size(); ++p) {
    streams.push_back(&sampled_[variants_[i].first_stream + p]);
  }
  return streams;
}

std::string BenchmarkRun::StreamName(const VariantRun& v, size_t placement) const {
  if (v.prepared.size() == 1) return v.name;
  return absl::StrCat(v.name, " [placement ", placement + 1, "/", v.prepared.size(), "]");
}

absl::Status BenchmarkRun::WarmUp() {
  for (VariantRun& v : variants_) {
    for (size_t p = 0; p < v.prepared.size(); ++p) {
      Report(v1::PROGRESS_PHASE_WARMUP, StreamName(v, p));
      KBENCH_RETURN_IF_ERROR(v.prepared[p]->Warmup());
    }
  }
  return absl::OkStatus();
}

absl::Status BenchmarkRun::SampleInterleaved() {
  std::vector<std::string> names;
  std::vector<measure::SampleFn> fns;
  for (VariantRun& v : variants_) {
    v.first_stream = names.size();
    for (size_t p = 0; p < v.prepared.size(); ++p) {
      KBENCH_ASSIGN_OR_RETURN(
          SealedStream stream,
          SealedStream::Start(sample_secret_, names.size(), v.problem, v.prepared[p].get()));
      sealed_.push_back(std::make_unique<SealedStream>(std::move(stream)));
      names.push_back(StreamName(v, p));
      fns.push_back(sealed_.back()->SampleFn());
    }
  }
  measure::SamplerHooks hooks;
  hooks.cancelled = context_.cancelled;
  SamplingConditions conditions = MakeSamplingConditions();
  hooks.progress = [&](const measure::ProgressUpdate& u) {
    Report(v1::PROGRESS_PHASE_MEASURE, u.variant, u.samples, u.noise, u.elapsed_seconds);
    conditions.BetweenSamples();
  };
  v1::Environment* env = run_.result.mutable_environment();
  runner_.BeginSampling();
  absl::Cleanup end = [&] { runner_.EndSampling(env); };
  conditions.BeforeSampling();
  KBENCH_ASSIGN_OR_RETURN(
      sampled_, measure::SampleInterleaved(names, fns, CriteriaFromSpec(spec_.stopping()), hooks));
  const v1::CleanStamp stamp = conditions.AfterSampling();
  std::move(end).Invoke();
  runner_.ReadClocks(env->mutable_after());
  // The variants were sampled interleaved: one window, one stamp for each.
  for (const VariantRun& v : variants_) {
    *run_.result.mutable_variants(v.result_index)->mutable_clean_stamp() = stamp;
  }
  return absl::OkStatus();
}

SamplingConditions BenchmarkRun::MakeSamplingConditions() const {
  const GateClock clock{
      [] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
            .count();
      },
      [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }};
  return SamplingConditions(
      runner_.conditions_reader(),
      ThermalGateOn(spec_.has_thermal_gate(), spec_.thermal_gate(), spec_.ranked()), clock,
      getpid());
}

absl::Status BenchmarkRun::CheckSealedSamples() {
  for (VariantRun& v : variants_) {
    Report(v1::PROGRESS_PHASE_CHECK, v.name);
    v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
    for (size_t p = 0; p < v.prepared.size(); ++p) {
      const size_t stream = v.first_stream + p;
      KBENCH_RETURN_IF_ERROR(sealed_[stream]->Check(
          sampled_[stream].per_launch_seconds(),
          absl::StrCat(spec_.kernel(), "/", v.name, PlacementSuffix(p, v.prepared.size())),
          vr->mutable_sealed_checks()));
    }
  }
  return absl::OkStatus();
}

absl::Status BenchmarkRun::CheckTimedLaunches() {
  for (VariantRun& v : variants_) {
    Report(v1::PROGRESS_PHASE_CHECK, v.name);
    // Fresh inputs that no launch has seen: a kernel that computed once and replays its result
    // (or computes only when it is checked) fails here, at whichever placement it does so.
    KBENCH_ASSIGN_OR_RETURN(const Reference reference, FreshInputs(v, timed_check_seed_));
    v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
    for (size_t p = 0; p < v.prepared.size(); ++p) {
      KBENCH_ASSIGN_OR_RETURN(const TimedCheck timed, v.prepared[p]->TakeCheckedSample());
      *vr->mutable_timed_correctness() = CompareWithReference(reference, timed.output);
      if (!vr->timed_correctness().passed()) {
        return FailCorrectness(
            v, vr->timed_correctness(),
            absl::StrCat("'s timed launch", PlacementSuffix(p, v.prepared.size())));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status BenchmarkRun::MeasureEnergy() {
  // At most a quarter of the job's sampling timeout per variant (the phase runs after sampling,
  // outside every timed sample, on the first placement's buffers).
  const double budget = 0.25 * CriteriaFromSpec(spec_.stopping()).timeout_seconds;
  for (size_t i = 0; i < variants_.size(); ++i) {
    VariantRun& v = variants_[i];
    if (runner_.energy_counter() != nullptr) {
      Report(v1::PROGRESS_PHASE_MEASURE, absl::StrCat(v.name, " (energy)"));
    }
    const double per_launch = Median(sampled_[v.first_stream].per_launch_seconds());
    const kernels::Cost cost = kernels::FindOperation(v.problem.op)->cost(v.problem);
    KBENCH_ASSIGN_OR_RETURN(
        *run_.result.mutable_variants(v.result_index)->mutable_energy(),
        MeasureVariantEnergy(runner_, *v.prepared.front(), per_launch, cost, budget));
  }
  return absl::OkStatus();
}

void BenchmarkRun::Summarize() {
  // The SM clock the probes saw during the kept samples (devices without probes leave it 0).
  std::vector<double> clocks;
  for (const measure::VariantSamples& vs : sampled_) {
    for (const measure::Sample& s : vs.kept) {
      if (s.sm_clock_mhz > 0) clocks.push_back(s.sm_clock_mhz);
    }
  }
  if (!clocks.empty()) {
    run_.result.mutable_environment()->set_estimated_sm_clock_mhz(Median(clocks));
  }
  double first_median = 0;
  for (size_t i = 0; i < variants_.size(); ++i) {
    SummarizeVariant(i, first_median);
    if (i == 0) first_median = run_.result.variants(0).stats().median_seconds();
  }
}

void BenchmarkRun::SummarizeVariant(size_t i, double first_median) {
  const std::vector<const measure::VariantSamples*> streams = StreamsOf(i);
  const measure::VariantSamples vs = PoolPlacements(streams);
  const VariantRun& v = variants_[i];
  v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
  DescribePlacements(placements_, streams, vr);
  const std::vector<double> per_launch = vs.per_launch_seconds();
  const measure::SampleStatistics stats = measure::ComputeStatistics(per_launch);
  FillStatistics(stats, vs.kept.front().launches, vr->mutable_stats());
  KeepSamples(per_launch, vr);
  const kernels::Cost cost = kernels::FindOperation(v.problem.op)->cost(v.problem);
  vr->set_bytes(cost.bytes);
  vr->set_flops(cost.flops);
  // A host clock can read 0 for a run shorter than its resolution: no rate then.
  if (stats.median > 0) {
    vr->set_bytes_per_second(static_cast<double>(cost.bytes) / stats.median);
    vr->set_flops_per_second(static_cast<double>(cost.flops) / stats.median);
    const double copy_bandwidth = runner_.info().copy_bandwidth_bytes_per_second();
    if (copy_bandwidth > 0) {
      vr->set_fraction_of_copy_bandwidth(vr->bytes_per_second() / copy_bandwidth);
    }
    const double peak = runner_.PeakFlops(v.problem.dtype);
    if (peak > 0) vr->set_fraction_of_peak_flops(vr->flops_per_second() / peak);
    vr->set_speedup_vs_first((i == 0 ? stats.median : first_median) / stats.median);
    vr->set_median_precision(0.5 * (stats.median_ci_high - stats.median_ci_low) / stats.median);
  }
  vr->set_stop_reason(vs.decision.reason);
  vr->set_stop_criterion(StopCriterionToProto(vs.decision.criterion));
  vr->set_converged(vs.decision.converged);
  vr->set_discarded_samples(vs.discarded);
  vr->set_throttled(ThrottledDuringRun(run_.result.environment(), vs));
  vr->set_measured_seconds(vs.measured_seconds);
  vr->set_wall_seconds(vs.wall_seconds);
  DescribeDrift(vs, vr);
  DescribeHostEnqueue(vs, vr);
  v.prepared.front()->DescribeMeasurement(vr);
  if (vr->rotation_over_l2() > 0) {
    vr->set_rotation_fits_l2(vr->rotation_over_l2() < kMinRotationOverL2);
  }
}

absl::Status BenchmarkRun::JudgeFloors() {
  for (const VariantRun& v : variants_) {
    v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
    *vr->mutable_floor() = JudgeFloor(runner_, v.problem, mode_, vr->stats().median_seconds());
    if (vr->floor().impossible()) {
      return absl::FailedPreconditionError(absl::StrCat("impossible: ", spec_.kernel(), "/", v.name,
                                                        " ", vr->floor().detail(),
                                                        "; the kernel cannot have done the "
                                                        "operation's work"));
    }
  }
  return absl::OkStatus();
}

void BenchmarkRun::PublishCheckSeeds() {
  v1::Environment* env = run_.result.mutable_environment();
  env->set_check_seed(check_seed_);
  env->set_timed_check_seed(timed_check_seed_);
  env->set_sample_secret(sample_secret_);
}

absl::Status BenchmarkRun::WriteSamplesArtifact() {
  const std::string csv = context_.job->artifact_dir() + "/samples.csv";
  std::vector<SampleStream> streams;
  for (size_t i = 0; i < variants_.size(); ++i) {
    const std::vector<const measure::VariantSamples*> samples = StreamsOf(i);
    for (size_t p = 0; p < samples.size(); ++p) {
      streams.push_back({variants_[i].name, static_cast<int>(p + 1), samples[p]});
    }
  }
  KBENCH_RETURN_IF_ERROR(WriteSamplesCsv(csv, streams));
  internal::v1::ArtifactFile* art = &run_.artifacts.emplace_back();
  art->set_name("samples.csv");
  art->set_path(csv);
  art->set_content_type("text/csv");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JobRun> RunBenchmarkJob(DeviceRunner& runner, const JobContext& context) {
  BenchmarkRun job(runner, context);
  KBENCH_RETURN_IF_ERROR(job.Initialize());
  KBENCH_RETURN_IF_ERROR(job.PrepareAndCheckVariants());
  KBENCH_RETURN_IF_ERROR(job.WarmUp());
  KBENCH_RETURN_IF_ERROR(job.SampleInterleaved());
  KBENCH_RETURN_IF_ERROR(job.CheckSealedSamples());
  KBENCH_RETURN_IF_ERROR(job.CheckTimedLaunches());
  KBENCH_RETURN_IF_ERROR(job.MeasureEnergy());
  job.Summarize();
  KBENCH_RETURN_IF_ERROR(job.JudgeFloors());
  job.PublishCheckSeeds();
  KBENCH_RETURN_IF_ERROR(job.WriteSamplesArtifact());
  return job.TakeRun();
}

}  // namespace kbench::executor
