// Pairs two jobs' variants and runs the verdict on each pair.
#include "client/verdict/job_diff.h"

#include <algorithm>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/verdict.h"
#include "client/args.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

using Pair = std::pair<const v1::VariantResult*, const v1::VariantResult*>;

absl::Status CheckComparable(const v1::Job& job) {
  if (job.spec().kind() != v1::JOB_KIND_BENCHMARK) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id(), " is a ", KindName(job.spec().kind()),
                     " job; only benchmark jobs have timings to compare"));
  }
  if (job.state() != v1::JOB_STATE_SUCCEEDED) {
    return absl::FailedPreconditionError(absl::StrCat("job ", job.id(), " is ",
                                                      StateName(job.state()),
                                                      "; only a succeeded job can be compared"));
  }
  return absl::OkStatus();
}

std::vector<Pair> PairVariants(const v1::JobResult& a, const v1::JobResult& b) {
  std::vector<Pair> pairs;
  for (const v1::VariantResult& va : a.variants()) {
    for (const v1::VariantResult& vb : b.variants()) {
      if (va.variant() == vb.variant()) pairs.emplace_back(&va, &vb);
    }
  }
  if (pairs.empty() && a.variants_size() == 1 && b.variants_size() == 1) {
    pairs.emplace_back(&a.variants(0), &b.variants(0));
  }
  return pairs;
}

void AddDifference(const std::string& what, const std::string& a, const std::string& b,
                   v1::JobComparison* out) {
  if (a != b) out->add_key_differences(absl::StrCat(what, " ", a, " vs ", b));
}

void ListKeyDifferences(const v1::Job& a, const v1::Job& b, v1::JobComparison* out) {
  const v1::JobSpec& sa = a.spec();
  const v1::JobSpec& sb = b.spec();
  AddDifference("kernel", sa.kernel(), sb.kernel(), out);
  AddDifference("shape", ShapeString({sa.shape().begin(), sa.shape().end()}),
                ShapeString({sb.shape().begin(), sb.shape().end()}), out);
  AddDifference("dtype", DTypeName(sa.dtype()), DTypeName(sb.dtype()), out);
  const std::map<std::string, int64_t> pa(sa.params().begin(), sa.params().end());
  const std::map<std::string, int64_t> pb(sb.params().begin(), sb.params().end());
  AddDifference("params", absl::StrJoin(pa, ",", absl::PairFormatter("=")),
                absl::StrJoin(pb, ",", absl::PairFormatter("=")), out);
  // One placement is one draw of the layout; several pool their spread (JobSpec.placements).
  AddDifference("placements", absl::StrCat(std::max(sa.placements(), 1)),
                absl::StrCat(std::max(sb.placements(), 1)), out);
  const v1::Environment& ea = a.result().environment();
  const v1::Environment& eb = b.result().environment();
  AddDifference("device_model", ea.device_name(), eb.device_name(), out);
  AddDifference("driver_version", ea.driver_version(), eb.driver_version(), out);
  AddDifference("kbench_version", ea.kbench_version(), eb.kbench_version(), out);
}

v1::Verdict ToProto(analysis::Verdict verdict) {
  switch (verdict) {
    case analysis::Verdict::kSame:
      return v1::VERDICT_SAME;
    case analysis::Verdict::kFaster:
      return v1::VERDICT_FASTER;
    case analysis::Verdict::kSlower:
      return v1::VERDICT_SLOWER;
    case analysis::Verdict::kUnsure:
      return v1::VERDICT_UNSURE;
  }
  return v1::VERDICT_UNSURE;
}

v1::VariantComparison ComparePair(const v1::Job& a, const v1::Job& b, const Pair& pair,
                                  const DiffOptions& options) {
  const v1::VariantResult& va = *pair.first;
  const v1::VariantResult& vb = *pair.second;
  v1::VariantComparison c;
  c.set_baseline_variant(va.variant());
  c.set_candidate_variant(vb.variant());
  *c.mutable_baseline_shape() = a.spec().shape();
  *c.mutable_candidate_shape() = b.spec().shape();
  c.set_baseline_samples(va.sample_seconds_size());
  c.set_candidate_samples(vb.sample_seconds_size());
  c.set_baseline_median_seconds(va.stats().median_seconds());
  c.set_candidate_median_seconds(vb.stats().median_seconds());
  c.set_verdict(v1::VERDICT_UNSURE);
  analysis::VerdictOptions verdict_options;
  verdict_options.alpha = options.alpha;
  verdict_options.min_effect_percent = options.min_effect_percent;
  const auto history = options.history_noise.find(va.variant());
  const HistoryNoise noise =
      history == options.history_noise.end() ? HistoryNoise{} : history->second;
  c.set_history_noise_percent(noise.p95_change_percent);
  c.set_history_results(noise.results);
  verdict_options.noise_percent = MeasuredNoisePercent(va, vb, noise);
  c.set_min_effect_percent(analysis::MinimumEffectPercent(verdict_options));
  absl::StatusOr<analysis::Comparison> r = analysis::Compare(
      std::span<const double>(va.sample_seconds().data(), va.sample_seconds_size()),
      std::span<const double>(vb.sample_seconds().data(), vb.sample_seconds_size()),
      verdict_options);
  if (!r.ok()) {
    c.set_problem(absl::StrCat(std::string(r.status().message()),
                               " (results recorded before kbench kept raw samples have none)"));
    return c;
  }
  c.set_test(analysis::TestName(r->test));
  c.set_p_value(r->p_value);
  c.set_baseline_median_seconds(r->baseline_median);
  c.set_candidate_median_seconds(r->candidate_median);
  c.set_change_percent(r->change.change_percent);
  c.set_change_ci_low_percent(r->change.low_percent);
  c.set_change_ci_high_percent(r->change.high_percent);
  c.set_verdict(ToProto(r->verdict));
  return c;
}

}  // namespace

double MeasuredNoisePercent(const v1::VariantResult& a, const v1::VariantResult& b,
                            const HistoryNoise& history) {
  return std::max(100 * std::max(a.median_precision(), b.median_precision()),
                  history.p95_change_percent);
}

absl::StatusOr<v1::JobComparison> CompareJobs(const v1::Job& baseline, const v1::Job& candidate,
                                              const DiffOptions& options) {
  KBENCH_RETURN_IF_ERROR(CheckComparable(baseline));
  KBENCH_RETURN_IF_ERROR(CheckComparable(candidate));
  const std::vector<Pair> pairs = PairVariants(baseline.result(), candidate.result());
  if (pairs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("jobs ", baseline.id(), " and ", candidate.id(), " share no variant"));
  }
  v1::JobComparison out;
  out.set_baseline_job_id(baseline.id());
  out.set_candidate_job_id(candidate.id());
  ListKeyDifferences(baseline, candidate, &out);
  for (const Pair& pair : pairs)
    *out.add_variants() = ComparePair(baseline, candidate, pair, options);
  return out;
}

}  // namespace kbench::client
