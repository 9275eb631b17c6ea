// kbctl diff JOB_A JOB_B: regression verdicts of a candidate job against a baseline, the job the
// unit of replication (docs/verdicts.md); --fail-on makes a CI pipeline fail on them.
#include <map>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/format/verdict_view.h"
#include "client/local_file.h"
#include "client/verdict/diff_flags.h"
#include "client/verdict/fail_on.h"
#include "client/verdict/history_noise.h"
#include "client/verdict/job_diff.h"
#include "common/report/diff_report.h"
#include "common/status_macros.h"

namespace kbench::client {

absl::Status AddVerdictFlags(CLI::App* cmd, VerdictFlags* flags) {
  cmd->add_option("--fail-on", flags->fail_on,
                  "Exit 1 when a variant's verdict, after Holm's correction over all the "
                  "variants compared, is one of these: slower, unsure, faster "
                  "(comma-separated), e.g. --fail-on slower in a CI pipeline")
      ->type_name("VERDICTS");
  cmd->add_option("--min-effect", flags->min_effect,
                  "Smallest change, percent, that matters (default 3): SAME only when a change "
                  "this large is ruled out, SLOWER/FASTER only when one this large is "
                  "plausible and the change stands out of the between-job noise of the key's "
                  "history; UNSURE where this device cannot resolve it (docs/verdicts.md)")
      ->type_name("PCT");
  cmd->add_flag("--no-history-noise", flags->no_history_noise,
                "Leave the key's history out: every key is then fresh, and only a change beyond "
                "any measured between-job noise (a factor of about 10) is called");
  return absl::OkStatus();
}

namespace {

// "2", "2.5" or "2.5%": a percentage in (0, 100].
absl::StatusOr<double> ParseMinEffect(const std::string& text) {
  double percent = 0;
  if (!absl::SimpleAtod(absl::StripSuffix(absl::StripAsciiWhitespace(text), "%"), &percent) ||
      !(percent > 0 && percent <= 100)) {
    return UsageError(
        absl::StrCat("--min-effect: '", text, "' is not a percentage above 0 and at most 100"));
  }
  return percent;
}

// The between-job noise of each of the baseline's variants, the two jobs left out. A history
// that cannot be read (an older kbenchd, a job without a result) leaves the key fresh, and says
// so.
std::map<std::string, analysis::BetweenJobNoise> HistoryNoiseOf(Session& session,
                                                                const v1::Job& baseline,
                                                                const v1::Job& candidate) {
  std::map<std::string, analysis::BetweenJobNoise> noise;
  if (baseline.state() != v1::JOB_STATE_SUCCEEDED) return noise;  // CompareJobs says why
  for (const v1::VariantResult& v : baseline.result().variants()) {
    absl::StatusOr<analysis::BetweenJobNoise> n = FetchHistoryNoise(
        session.connection(), baseline, v.variant(), {baseline.id(), candidate.id()});
    if (!n.ok()) {
      session.err() << "kbctl: the history of " << v.variant() << " could not be read ("
                    << n.status().message() << "); its verdict is that of a fresh key\n";
      continue;
    }
    noise[v.variant()] = *n;
  }
  return noise;
}

}  // namespace

absl::Status CheckVerdictFlags(const VerdictFlags& flags) {
  KBENCH_RETURN_IF_ERROR(ParseFailOn(flags.fail_on).status());
  if (!flags.min_effect.empty()) KBENCH_RETURN_IF_ERROR(ParseMinEffect(flags.min_effect).status());
  return absl::OkStatus();
}

absl::StatusOr<v1::JobComparison> CompareForVerdict(Session& session, const v1::Job& baseline,
                                                    const v1::Job& candidate,
                                                    const VerdictFlags& flags) {
  DiffOptions options;
  if (!flags.min_effect.empty()) {
    KBENCH_ASSIGN_OR_RETURN(options.min_effect_percent, ParseMinEffect(flags.min_effect));
  }
  if (!flags.no_history_noise) {
    options.history_noise = HistoryNoiseOf(session, baseline, candidate);
  }
  absl::StatusOr<v1::JobComparison> compared = CompareJobs(baseline, candidate, options);
  // The jobs arrived but cannot be compared (not succeeded, no common variant): exit 1.
  if (!compared.ok())
    return CheckFailedError(compared.status().code(), compared.status().message());
  return compared;
}

namespace {

absl::Status WriteDiffPage(Session& session, const v1::ExplainedComparison& diff,
                           const VerdictFlags& flags) {
  const std::string generated =
      absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", session.Now(), absl::UTCTimeZone());
  const bool explained = flags.explain.scope() != explain::ExplainScope::kNone;
  KBENCH_RETURN_IF_ERROR(
      WriteLocalFile(flags.report_file, report::RenderDiffReport(diff, generated, explained)));
  session.Note(absl::StrCat("kbctl: wrote ", flags.report_file));
  return absl::OkStatus();
}

}  // namespace

absl::Status CompareAndReport(Session& session, const v1::Job& baseline, const v1::Job& candidate,
                              const VerdictFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(std::set<v1::Verdict> fail_on, ParseFailOn(flags.fail_on));
  KBENCH_ASSIGN_OR_RETURN(v1::JobComparison comparison,
                          CompareForVerdict(session, baseline, candidate, flags));
  v1::ExplainedComparison diff;
  if (flags.explain.scope() != explain::ExplainScope::kNone) {
    KBENCH_ASSIGN_OR_RETURN(diff, explain::ReportExplained(session, baseline, candidate, comparison,
                                                           flags.explain.scope()));
  } else {
    *diff.mutable_comparison() = comparison;
    if (session.json()) {
      KBENCH_RETURN_IF_ERROR(session.PrintJson(comparison));
    } else {
      session.out() << RenderComparison(comparison);
    }
  }
  if (!flags.report_file.empty()) KBENCH_RETURN_IF_ERROR(WriteDiffPage(session, diff, flags));
  return ApplyFailOn(comparison, fail_on);
}

namespace {

// The job as diff needs it: an explanation re-submits user kernels, so it asks for their code
// (replies carry only its sha256); someone else's code is refused, and then the explanation
// says what it could not measure.
absl::StatusOr<v1::Job> DiffedJob(Session& session, const std::string& id, bool explained) {
  if (explained) {
    absl::StatusOr<v1::Job> with_code = session.connection().GetJob(id, /*include_code=*/true);
    if (!absl::IsPermissionDenied(with_code.status())) return with_code;
  }
  return session.connection().GetJob(id);
}

absl::Status RunDiff(Session& session, const std::string& a, const std::string& b,
                     const VerdictFlags& flags) {
  KBENCH_RETURN_IF_ERROR(CheckVerdictFlags(flags));  // a usage error sends nothing
  const bool explained = flags.explain.changed || flags.explain.all;
  KBENCH_ASSIGN_OR_RETURN(v1::Job baseline, DiffedJob(session, a, explained));
  KBENCH_ASSIGN_OR_RETURN(v1::Job candidate, DiffedJob(session, b, explained));
  return CompareAndReport(session, baseline, candidate, flags);
}

}  // namespace

void AddDiffCommand(CLI::App& app, Action* action) {
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto flags = std::make_shared<VerdictFlags>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Compare two benchmark jobs variant by variant: the change in medians against the "
      "between-job noise of the key's history, Holm-corrected over the variants, a verdict "
      "FASTER/SLOWER/SAME/UNSURE (docs/verdicts.md)");
  cmd->add_option("JOB_A", *a, "The baseline job")->required();
  cmd->add_option("JOB_B", *b, "The candidate job")->required();
  (void)AddVerdictFlags(cmd, flags.get());
  explain::AddExplainFlags(cmd, &flags->explain);
  cmd->add_option("-f,--file", flags->report_file,
                  "Also write the verdicts (and, with --explain, what changed in the kernels) as "
                  "a self-contained HTML page, e.g. for a CI job's artifacts")
      ->type_name("PATH");
  cmd->callback([a, b, flags, action] {
    *action = [a, b, flags](Session& s) { return RunDiff(s, *a, *b, *flags); };
  });
}

}  // namespace kbench::client
