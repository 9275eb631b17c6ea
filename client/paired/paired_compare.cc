// The interleaved A/B of kbctl compare --baseline VARIANT: build, run, decide, print.
#include "client/paired/paired_compare.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "client/errors.h"
#include "client/format/job_view.h"
#include "client/format/paired_view.h"
#include "client/format/verdict_view.h"
#include "client/job_wait.h"
#include "client/paired/paired_run.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// The request of both sides: the flags' one candidate, the baseline listed first.
absl::StatusOr<v1::SubmitJobRequest> BuildAbRequest(Session& session, const SpecFlags& flags,
                                                    const std::string& baseline) {
  if (flags.placements.has_value()) {
    return UsageError("--placements: an A/B sets them from --repeat (one pair per placement)");
  }
  if (flags.no_wait) return UsageError("--no-wait: an A/B's verdict needs its jobs' results");
  KBENCH_ASSIGN_OR_RETURN(
      v1::SubmitJobRequest request,
      BuildSubmitRequest(flags, SubmitCommand::kCompare, DefaultOwner(session)));
  v1::JobSpec* spec = request.mutable_spec();
  if (spec->variants_size() != 1 || spec->variants(0) == "all") {
    return UsageError(absl::StrCat(
        "--variants: an A/B against --baseline ", baseline,
        " takes one candidate (a variant, an @name, or a user kernel with --source), got ",
        spec->variants_size() == 1 ? "\"all\"" : absl::StrCat(spec->variants_size())));
  }
  if (spec->variants(0) == baseline) {
    return UsageError(absl::StrCat("--baseline: ", baseline, " is also the candidate"));
  }
  const std::string candidate = spec->variants(0);
  spec->clear_variants();
  spec->add_variants(baseline);
  spec->add_variants(candidate);
  KBENCH_RETURN_IF_ERROR(ResolveDefaults(session, &request));
  return request;
}

absl::Status PrintAb(Session& session, const v1::JobSpec& spec, const PairedRun& run,
                     const analysis::PairedVerdict& verdict) {
  if (session.json()) {
    session.out() << PairedRunJson(spec.variants(0), spec.variants(1), run, verdict);
    return absl::OkStatus();
  }
  for (const v1::Job& job : run.jobs) session.out() << RenderJob(job) << "\n";
  session.out() << RenderPairedRun(spec.variants(0), spec.variants(1), run, verdict);
  return absl::OkStatus();
}

}  // namespace

bool IsJobId(const std::string& text) {
  if (text.size() != 18 || !absl::StartsWith(text, "j-")) return false;
  for (char c : text.substr(2)) {
    if (!absl::ascii_isxdigit(c) || absl::ascii_isupper(c)) return false;
  }
  return true;
}

absl::Status RunPairedCompare(Session& session, const SpecFlags& flags,
                              const PairedCompareOptions& options) {
  KBENCH_ASSIGN_OR_RETURN(v1::SubmitJobRequest request,
                          BuildAbRequest(session, flags, options.baseline));
  KBENCH_ASSIGN_OR_RETURN(PairedRun run, RunSharedPairs(session, request, options.pairs));
  analysis::PairedOptions paired;
  paired.min_effect_percent = options.min_effect_percent;
  absl::StatusOr<analysis::PairedVerdict> verdict =
      analysis::ComparePairs(run.baseline_seconds, run.candidate_seconds, paired);
  if (!verdict.ok()) {
    return CheckFailedError(verdict.status().code(), verdict.status().message());
  }
  KBENCH_RETURN_IF_ERROR(PrintAb(session, request.spec(), run, *verdict));
  return ApplyPairedFailOn(
      verdict->verdict, options.fail_on,
      absl::StrCat(request.spec().variants(1), " vs ", request.spec().variants(0), " over ",
                   verdict->pairs, " pairs"));
}

absl::Status ApplyPairedFailOn(analysis::Verdict verdict, const std::set<v1::Verdict>& fail_on,
                               const std::string& what) {
  const std::string name = analysis::VerdictName(verdict);
  // By name: the API's verdicts and the analysis' are the same four words.
  bool listed = false;
  for (v1::Verdict v : fail_on) listed = listed || VerdictName(v) == name;
  if (!listed) return absl::OkStatus();
  return CheckFailedError(absl::StatusCode::kFailedPrecondition,
                          absl::StrCat("--fail-on: ", what, ": ", analysis::VerdictName(verdict)));
}

}  // namespace kbench::client
