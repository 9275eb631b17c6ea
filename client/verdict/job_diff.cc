// Pairs two jobs' variants, runs the between-job verdict on each pair, corrects for the family.
#include "client/verdict/job_diff.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/args.h"
#include "client/format/conditions_view.h"
#include "client/verdict/verdict_reason.h"
#include "common/stats/family_correction.h"
#include "common/stats/verdict.h"
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

// Issue 29: each side's energy per launch, and a note when time and energy move apart.
void CompareEnergy(const v1::VariantResult& va, const v1::VariantResult& vb,
                   v1::VariantComparison* c) {
  if (va.energy().measured()) c->set_baseline_joules_per_launch(va.energy().joules_per_launch());
  if (vb.energy().measured()) c->set_candidate_joules_per_launch(vb.energy().joules_per_launch());
  const auto joules = [](bool has, double value) {
    return has ? std::optional<double>(value) : std::nullopt;
  };
  c->set_energy_note(EnergyTradeOff(
      va.stats().median_seconds(),
      joules(c->has_baseline_joules_per_launch(), c->baseline_joules_per_launch()),
      vb.stats().median_seconds(),
      joules(c->has_candidate_joules_per_launch(), c->candidate_joules_per_launch())));
}

// The two results' verdict before the family's correction.
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
  CompareEnergy(va, vb, &c);
  c.set_min_effect_percent(options.min_effect_percent);
  c.set_verdict(v1::VERDICT_UNSURE);
  c.set_p_value(1);
  const auto history = options.history_noise.find(va.variant());
  const analysis::BetweenJobNoise noise =
      history == options.history_noise.end() ? analysis::BetweenJobNoise{} : history->second;
  c.set_history_noise_percent(100 * std::expm1(noise.sigma_log));
  c.set_history_results(noise.results);
  c.set_history_results_before_step(noise.results_before_step);
  std::string over;
  absl::StatusOr<analysis::JobEstimate> ea = EstimateOf(va, &over);
  absl::StatusOr<analysis::JobEstimate> eb = EstimateOf(vb, &over);
  c.set_interval_over(over);
  absl::StatusOr<analysis::BetweenJobComparison> r =
      !ea.ok()   ? ea.status()
      : !eb.ok() ? eb.status()
                 : analysis::CompareBetweenJobs(*ea, *eb, noise, options.alpha,
                                                options.min_effect_percent);
  if (!r.ok()) {
    c.set_problem(std::string(r.status().message()));
    return c;
  }
  c.set_test(r->fresh_key ? "fresh_key_bound" : "between_jobs_t");
  c.set_p_value(r->p_value);
  c.set_change_percent(r->change.change_percent);
  c.set_change_ci_low_percent(r->change.low_percent);
  c.set_change_ci_high_percent(r->change.high_percent);
  c.set_resolvable_effect_percent(r->resolvable_percent);
  c.set_verdict(ToProto(r->verdict));
  return c;
}

// Holm's correction over the family of variants: each verdict is decided again on its adjusted
// p-value; the one before is kept beside it.
void CorrectForTheFamily(const DiffOptions& options, v1::JobComparison* out) {
  std::vector<double> p_values;
  for (const v1::VariantComparison& c : out->variants()) p_values.push_back(c.p_value());
  const std::vector<double> adjusted = analysis::HolmAdjust(p_values);
  for (int i = 0; i < out->variants_size(); ++i) {
    v1::VariantComparison& c = *out->mutable_variants(i);
    c.set_uncorrected_verdict(c.verdict());
    c.set_adjusted_p_value(adjusted[i]);
    if (!c.problem().empty()) continue;
    const analysis::ChangeInterval change{c.change_percent(), c.change_ci_low_percent(),
                                          c.change_ci_high_percent()};
    c.set_verdict(
        ToProto(analysis::Decide(adjusted[i], change, options.alpha, c.min_effect_percent())));
  }
  out->set_family_correction(analysis::kFamilyCorrection);
  out->set_family_size(out->variants_size());
  out->set_alpha(options.alpha);
  out->set_expected_false_verdicts(
      analysis::ExpectedFalseVerdicts(out->variants_size(), options.alpha));
}

}  // namespace

absl::StatusOr<analysis::JobEstimate> EstimateOf(const v1::VariantResult& result,
                                                 std::string* interval_over) {
  analysis::JobEstimate e;
  e.median_seconds = result.stats().median_seconds();
  if (!(e.median_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "variant ", result.variant(), " has no median time (a result without samples)"));
  }
  if (result.placements_size() >= 2) {
    std::vector<double> medians;
    for (const v1::PlacementResult& p : result.placements()) medians.push_back(p.median_seconds());
    *interval_over = "placement medians";
    KBENCH_ASSIGN_OR_RETURN(e.log_standard_error,
                            analysis::BootstrapLogMedianStandardError(medians));
    return e;
  }
  if (interval_over->empty()) *interval_over = "samples";
  // The job's own 95 % interval of its median, as a standard error of its log.
  const double low = result.stats().median_ci_low_seconds();
  const double high = result.stats().median_ci_high_seconds();
  if (low > 0 && high >= low) e.log_standard_error = std::log(high / low) / (2 * 1.959964);
  return e;
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
  CorrectForTheFamily(options, &out);
  for (v1::VariantComparison& c : *out.mutable_variants()) {
    c.set_reason(VerdictReason(c, baseline.id(), out.family_size()));
  }
  return out;
}

}  // namespace kbench::client
