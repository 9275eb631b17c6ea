// The benchmark pipeline shared by the cpu and CUDA executors.
#include "server/executor/benchmark_job.h"

#include <fstream>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/catalogue.h"
#include "kernels/check.h"
#include "server/common/spec_problem.h"
#include "server/executor/measure/statistics.h"

namespace kbench::executor {
namespace {

// Problems costlier than this are checked on a sample of output elements when the operation
// offers a per-element reference (a full float64 matmul reference at 4096^3 takes minutes).
constexpr double kFullReferenceFlopLimit = 2e9;
constexpr int64_t kSampledElements = 4096;

measure::StoppingCriteria CriteriaFromSpec(const v1::StoppingCriteria& s) {
  measure::StoppingCriteria c;
  if (s.max_noise() > 0) c.max_noise = s.max_noise();
  if (s.min_samples() > 0) c.min_samples = s.min_samples();
  if (s.min_time_seconds() > 0) c.min_time_seconds = s.min_time_seconds();
  if (s.timeout_seconds() > 0) c.timeout_seconds = s.timeout_seconds();
  return c;
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
}

absl::Status WriteSamplesCsv(const std::string& path,
                             const std::vector<measure::VariantSamples>& all) {
  std::ofstream f(path);
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  f << "variant,sample,seconds,launches,seconds_per_launch,sm_clock_mhz\n";
  for (const auto& vs : all) {
    for (size_t i = 0; i < vs.kept.size(); ++i) {
      const measure::Sample& s = vs.kept[i];
      f << absl::StrFormat("%s,%d,%.9e,%d,%.9e,%.1f\n", vs.name, i, s.seconds, s.launches,
                           s.per_launch(), s.sm_clock_mhz);
    }
  }
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("write failed: ", path));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Correctness> CheckVariant(PreparedVariant& variant,
                                             const kernels::Problem& problem, uint64_t seed) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("unknown operation " + problem.op);
  absl::StatusOr<kernels::HostTensors> inputs = variant.Inputs();
  if (!inputs.ok()) return inputs.status();
  absl::StatusOr<CheckedOutput> out = variant.RunChecked();
  if (!out.ok()) return out.status();

  const kernels::Layout layout = op->layout(problem);
  const double tolerance = op->tolerance(problem);
  const bool sampled = op->reference_element &&
                       static_cast<double>(op->cost(problem).flops) > kFullReferenceFlopLimit;
  std::vector<double> got, want;
  if (sampled) {
    std::mt19937_64 rng(seed ^ 0x5eed);
    for (size_t o = 0; o < layout.outputs.size(); ++o) {
      const int64_t n = layout.outputs[o].elements;
      std::uniform_int_distribution<int64_t> pick(0, n - 1);
      for (int64_t i = 0; i < std::min(n, kSampledElements); ++i) {
        const int64_t index = pick(rng);
        got.push_back(out->outputs[o][index]);
        want.push_back(op->reference_element(problem, *inputs, o, index));
      }
    }
  } else {
    kernels::HostTensors ref(layout.outputs.size());
    for (size_t o = 0; o < layout.outputs.size(); ++o) ref[o].assign(layout.outputs[o].elements, 0);
    op->reference(problem, *inputs, &ref);
    for (size_t o = 0; o < ref.size(); ++o) {
      got.insert(got.end(), out->outputs[o].begin(), out->outputs[o].end());
      want.insert(want.end(), ref[o].begin(), ref[o].end());
    }
  }
  const kernels::CheckResult r = kernels::CompareRelativeL2(got, want, tolerance);
  v1::Correctness c;
  c.set_checked(true);
  c.set_passed(r.passed && out->unwritten == 0);
  c.set_relative_l2_error(r.relative_l2_error);
  c.set_tolerance(tolerance);
  c.set_nan_count(r.nan_count);
  c.set_unwritten_count(out->unwritten);
  c.set_elements_checked(r.elements_checked);
  std::string detail = r.detail;
  if (out->unwritten > 0) {
    detail = absl::StrCat(out->unwritten, " output elements never written",
                          detail.empty() ? "" : "; ", detail);
  }
  if (sampled) absl::StrAppend(&detail, detail.empty() ? "" : "; ", "checked on a random sample");
  c.set_detail(detail);
  return c;
}

absl::StatusOr<JobRun> RunBenchmarkJob(DeviceRunner& runner, const JobContext& context) {
  const v1::JobSpec& spec = context.job->spec();
  if (spec.variants().empty()) return absl::InvalidArgumentError("variants: none given");
  uint64_t seed = spec.seed();
  if (seed == 0) seed = std::random_device{}() | (uint64_t{std::random_device{}()} << 32) | 1;
  const v1::MeasureMode mode =
      spec.mode() == v1::MEASURE_MODE_UNSPECIFIED ? runner.default_mode() : spec.mode();

  const auto report = [&](const std::string& phase, const std::string& variant, int64_t samples,
                          double noise, double elapsed) {
    if (!context.progress) return;
    v1::Progress p;
    p.set_phase(phase);
    p.set_variant(variant);
    p.set_samples(samples);
    p.set_noise(noise);
    p.set_elapsed_seconds(elapsed);
    context.progress(p);
  };

  JobRun run;
  v1::Environment* env = run.result.mutable_environment();
  runner.FillEnvironment(env);
  env->set_seed(seed);
  runner.ReadClocks(env->mutable_before());

  std::vector<kernels::Problem> problems;
  std::vector<std::unique_ptr<PreparedVariant>> prepared;
  std::vector<v1::Correctness> checks;
  for (const std::string& name : spec.variants()) {
    absl::StatusOr<kernels::Problem> problem = ProblemFromSpec(spec, name);
    if (!problem.ok()) return problem.status();
    if (absl::Status s = kernels::ValidateProblem(&*problem); !s.ok()) return s;
    report("check", name, 0, 0, 0);
    absl::StatusOr<std::unique_ptr<PreparedVariant>> pv = runner.Prepare(*problem, seed, mode);
    if (!pv.ok()) return pv.status();
    absl::StatusOr<v1::Correctness> check = CheckVariant(**pv, *problem, seed);
    if (!check.ok()) return check.status();
    auto* vr = run.result.add_variants();
    vr->set_variant(name);
    vr->set_mode(mode);
    *vr->mutable_correctness() = *check;
    if (!check->passed()) {
      return absl::FailedPreconditionError(
          absl::StrCat("correctness: ", spec.kernel(), "/", name, " does not match the float64 "
                       "reference: ", check->detail()));
    }
    problems.push_back(*std::move(problem));
    prepared.push_back(*std::move(pv));
  }

  for (size_t i = 0; i < prepared.size(); ++i) {
    report("warmup", spec.variants(i), 0, 0, 0);
    if (absl::Status s = prepared[i]->Warmup(); !s.ok()) return s;
  }

  std::vector<std::string> names(spec.variants().begin(), spec.variants().end());
  std::vector<measure::SampleFn> fns;
  for (auto& pv : prepared) fns.push_back([p = pv.get()] { return p->TakeSample(); });
  measure::SamplerHooks hooks;
  hooks.cancelled = context.cancelled;
  hooks.progress = [&](const measure::ProgressUpdate& u) {
    report("measure", u.variant, u.samples, u.noise, u.elapsed_seconds);
  };
  absl::StatusOr<std::vector<measure::VariantSamples>> sampled =
      measure::SampleInterleaved(names, fns, CriteriaFromSpec(spec.stopping()), hooks);
  if (!sampled.ok()) return sampled.status();
  runner.ReadClocks(env->mutable_after());
  // The SM clock the probes saw during the kept samples (devices without probes leave it 0).
  std::vector<double> clocks;
  for (const measure::VariantSamples& vs : *sampled) {
    for (const measure::Sample& s : vs.kept) {
      if (s.sm_clock_mhz > 0) clocks.push_back(s.sm_clock_mhz);
    }
  }
  if (!clocks.empty()) env->set_estimated_sm_clock_mhz(measure::ComputeStatistics(clocks).median);

  const v1::DeviceInfo& info = runner.info();
  double first_median = 0;
  for (size_t i = 0; i < sampled->size(); ++i) {
    const measure::VariantSamples& vs = (*sampled)[i];
    v1::VariantResult* vr = run.result.mutable_variants(static_cast<int>(i));
    const measure::SampleStatistics stats = measure::ComputeStatistics(vs.per_launch_seconds());
    const int64_t launches = vs.kept.empty() ? 0 : vs.kept.front().launches;
    FillStatistics(stats, launches, vr->mutable_stats());
    const kernels::Operation* op = kernels::FindOperation(problems[i].op);
    const kernels::Cost cost = op->cost(problems[i]);
    vr->set_bytes(cost.bytes);
    vr->set_flops(cost.flops);
    if (stats.median > 0) {
      vr->set_bytes_per_second(static_cast<double>(cost.bytes) / stats.median);
      vr->set_flops_per_second(static_cast<double>(cost.flops) / stats.median);
      if (info.copy_bandwidth_bytes_per_second() > 0) {
        vr->set_fraction_of_copy_bandwidth(vr->bytes_per_second() /
                                           info.copy_bandwidth_bytes_per_second());
      }
      const double peak = runner.PeakFlops(problems[i].dtype);
      if (peak > 0) vr->set_fraction_of_peak_flops(vr->flops_per_second() / peak);
    }
    if (i == 0) first_median = stats.median;
    if (stats.median > 0) vr->set_speedup_vs_first(first_median / stats.median);
    vr->set_stop_reason(vs.decision.reason);
    vr->set_converged(vs.decision.converged);
    vr->set_discarded_samples(vs.discarded);
    vr->set_throttled(vs.discarded > 0 || env->after().throttle_reasons() != 0);
    vr->set_measured_seconds(vs.measured_seconds);
    vr->set_wall_seconds(vs.wall_seconds);
  }

  const std::string csv = context.job->artifact_dir() + "/samples.csv";
  if (absl::Status s = WriteSamplesCsv(csv, *sampled); !s.ok()) return s;
  internal::v1::ArtifactFile* art = &run.artifacts.emplace_back();
  art->set_name("samples.csv");
  art->set_path(csv);
  art->set_content_type("text/csv");
  return run;
}

}  // namespace kbench::executor
