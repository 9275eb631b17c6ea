// The --explain step of kbctl diff: which pairs, their profiles, the explanation of each.
#include "client/explain/explain_diff.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/explain/explain_change.h"
#include "client/explain/explanation_view.h"
#include "client/explain/profile_side.h"
#include "client/format/verdict_view.h"
#include "common/status_macros.h"
#include "kbench/v1/explain.pb.h"

namespace kbench::client::explain {
namespace {

bool InScope(const v1::VariantComparison& v, ExplainScope scope) {
  if (scope == ExplainScope::kAll) return true;
  return v.verdict() == v1::VERDICT_FASTER || v.verdict() == v1::VERDICT_SLOWER;
}

v1::VariantExplanation Header(const v1::VariantComparison& v) {
  v1::VariantExplanation e;
  e.set_baseline_variant(v.baseline_variant());
  e.set_candidate_variant(v.candidate_variant());
  e.set_verdict(v.verdict());
  e.set_change_percent(v.change_percent());
  return e;
}

// A pair that cannot be profiled at all: profiles need CUPTI, so a CUDA device.
std::optional<std::string> CannotProfile(const v1::Job& baseline, const v1::Job& candidate) {
  for (const v1::Job* job : {&baseline, &candidate}) {
    if (!RanOnCuda(*job)) {
      return absl::StrCat("everything: profiling needs a CUDA device (CUPTI); job ", job->id(),
                          " ran on ", job->device().empty() ? "no device" : job->device());
    }
  }
  return std::nullopt;
}

absl::StatusOr<v1::VariantExplanation> ExplainPair(Session& session, const v1::Job& baseline,
                                                   const v1::Job& candidate,
                                                   const v1::VariantComparison& v) {
  if (std::optional<std::string> why = CannotProfile(baseline, candidate)) {
    v1::VariantExplanation e = Header(v);
    e.add_not_measured(*why);
    return e;
  }
  KBENCH_ASSIGN_OR_RETURN(SideProfile b,
                          ProfileSide(session, baseline, v.baseline_variant(), "baseline"));
  KBENCH_ASSIGN_OR_RETURN(SideProfile c,
                          ProfileSide(session, candidate, v.candidate_variant(), "candidate"));
  std::optional<SassTexts> sass;
  if (b.sass && c.sass) sass = SassTexts{*b.sass, *c.sass};
  v1::VariantExplanation e;
  if (b.profile && c.profile) {
    e = ExplainChange(b.profile->result().profile(), c.profile->result().profile(), sass);
  }
  // The sides' own reasons first: they say why the generic ones below hold.
  v1::VariantExplanation out = Header(v);
  out.set_baseline_profile_job_id(b.profile_job_id);
  out.set_candidate_profile_job_id(c.profile_job_id);
  for (const std::string& line : b.not_measured) out.add_not_measured(line);
  for (const std::string& line : c.not_measured) out.add_not_measured(line);
  out.MergeFrom(e);  // verdict and ids are unset in e, so the header's stay
  return out;
}

}  // namespace

ExplainScope ExplainFlags::scope() const {
  if (all) return ExplainScope::kAll;
  return changed ? ExplainScope::kChanged : ExplainScope::kNone;
}

void AddExplainFlags(CLI::App* cmd, ExplainFlags* flags) {
  cmd->add_flag("--explain", flags->changed,
                "For each FASTER or SLOWER variant, profile both sides (Nsight Compute where the "
                "device's host has it, else CUPTI) and rank what changed in their kernels; needs "
                "a CUDA device");
  cmd->add_flag("--explain-all", flags->all,
                "As --explain, for every variant whatever its verdict");
}

absl::StatusOr<v1::ExplainedComparison> ReportExplained(Session& session, const v1::Job& baseline,
                                                        const v1::Job& candidate,
                                                        const v1::JobComparison& comparison,
                                                        ExplainScope scope) {
  v1::ExplainedComparison explained;
  *explained.mutable_comparison() = comparison;
  if (!session.json()) session.out() << RenderComparison(comparison);
  for (const v1::VariantComparison& v : comparison.variants()) {
    if (!InScope(v, scope)) continue;
    KBENCH_ASSIGN_OR_RETURN(*explained.add_explanations(),
                            ExplainPair(session, baseline, candidate, v));
  }
  if (session.json()) {
    KBENCH_RETURN_IF_ERROR(session.PrintJson(explained));
  } else {
    session.out() << RenderExplanations(explained);
  }
  return explained;
}

}  // namespace kbench::client::explain
