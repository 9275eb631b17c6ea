// kbctl bench / compare: submit a benchmark of one variant, or of several sampled interleaved,
// follow it, and print the result; compare --baseline VARIANT runs an interleaved A/B.
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/args.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/job_wait.h"
#include "client/paired/paired_compare.h"
#include "client/paired/paired_run.h"
#include "client/spec_options.h"
#include "client/verdict/diff_flags.h"
#include "client/verdict/fail_on.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// --baseline JOB|VARIANT, --repeat and the verdict's flags.
struct BaselineFlags {
  std::string baseline;
  std::optional<std::string> repeat;
  VerdictFlags verdict;
};

absl::Status RunBenchmark(Session& session, const SpecFlags& flags, SubmitCommand command,
                          const BaselineFlags& baseline_flags) {
  std::optional<v1::Job> baseline;
  if (baseline_flags.baseline.empty() &&
      (!baseline_flags.verdict.fail_on.empty() || !baseline_flags.verdict.min_effect.empty())) {
    return UsageError("--fail-on and --min-effect need --baseline JOB|VARIANT");
  }
  if (baseline_flags.repeat.has_value()) {
    return UsageError(
        "--repeat: the pairs of an A/B; it needs `compare OP --baseline VARIANT --variants NEW`");
  }
  if (!baseline_flags.baseline.empty() && !IsJobId(baseline_flags.baseline)) {
    return UsageError(absl::StrCat("--baseline: '", baseline_flags.baseline,
                                   "' is not a job id (j- and 16 hex digits); an A/B against a "
                                   "variant is `kbctl compare OP --baseline VARIANT --variants "
                                   "NEW`"));
  }
  if (!baseline_flags.baseline.empty()) {
    // Checked before submitting: a bad flag or an unusable baseline costs no device time.
    KBENCH_RETURN_IF_ERROR(CheckVerdictFlags(baseline_flags.verdict));
    KBENCH_ASSIGN_OR_RETURN(baseline, session.connection().GetJob(baseline_flags.baseline));
  }
  KBENCH_ASSIGN_OR_RETURN(std::optional<v1::Job> job, SubmitAndWait(session, flags, command));
  if (!job.has_value()) return absl::OkStatus();  // --no-wait: the job was printed.
  if (!baseline.has_value()) return PrintJobReport(session, *job);
  if (!session.json()) {
    KBENCH_RETURN_IF_ERROR(PrintJobReport(session, *job));
    session.out() << "\n";
  } else {
    KBENCH_RETURN_IF_ERROR(JobOutcome(*job));
  }
  return CompareAndReport(session, *baseline, *job, baseline_flags.verdict);
}

// compare --baseline VARIANT: flags checked before anything is sent.
absl::Status RunAb(Session& session, const SpecFlags& flags, const BaselineFlags& baseline_flags) {
  if (baseline_flags.verdict.no_history_noise) {
    return UsageError("--no-history-noise: an A/B's noise comes from its pairs, not a history");
  }
  PairedCompareOptions options;
  options.baseline = baseline_flags.baseline;
  if (baseline_flags.repeat.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t pairs,
                            ParseInt("--repeat", *baseline_flags.repeat, 2, kMaxPairs));
    options.pairs = static_cast<int>(pairs);
  }
  if (!baseline_flags.verdict.min_effect.empty()) {
    KBENCH_ASSIGN_OR_RETURN(options.min_effect_percent,
                            ParsePercent("--min-effect", baseline_flags.verdict.min_effect));
  }
  KBENCH_ASSIGN_OR_RETURN(options.fail_on, ParseFailOn(baseline_flags.verdict.fail_on));
  return RunPairedCompare(session, flags, options);
}

void AddSubmitCommand(CLI::App& app, Action* action, SubmitCommand command, const char* name,
                      const char* description) {
  auto flags = std::make_shared<SpecFlags>();
  auto baseline = std::make_shared<BaselineFlags>();
  CLI::App* cmd = app.add_subcommand(name, description);
  AddSpecFlags(cmd, command, flags.get());
  if (command == SubmitCommand::kCompare) {
    cmd->add_option("--baseline", baseline->baseline,
                    "A job id (j- and 16 hex digits): after the job, compare it with that "
                    "earlier job (as kbctl diff JOB NEW; with -o json only the comparison is "
                    "printed). A variant (catalogue or @name): an interleaved A/B, the baseline "
                    "timed with the one --variants candidate (or --source kernel) in the same "
                    "jobs, --repeat pairs on as many placements, one verdict over the pairs")
        ->type_name("JOB|VARIANT");
    cmd->add_option_function<std::string>(
           "--repeat", [baseline](const std::string& v) { baseline->repeat = v; },
           "A/B pairs (default 8, at most 1024; 16 per job, one per placement); the verdict's "
           "interval is over pairs, so more pairs resolve smaller changes; --min-effect defaults "
           "to "
           "3 in an A/B")
        ->type_name("N");
  } else {
    cmd->add_option("--baseline", baseline->baseline,
                    "After the job, compare it with this earlier job (as kbctl diff JOB NEW); "
                    "with -o json only the comparison is printed")
        ->type_name("JOB");
  }
  (void)AddVerdictFlags(cmd, &baseline->verdict);
  cmd->callback([flags, baseline, action, command] {
    *action = [flags, baseline, command](Session& s) {
      if (command == SubmitCommand::kCompare && !baseline->baseline.empty() &&
          !IsJobId(baseline->baseline)) {
        return RunAb(s, *flags, *baseline);
      }
      return RunBenchmark(s, *flags, command, *baseline);
    };
  });
}

}  // namespace

void AddBenchCommands(CLI::App& app, Action* action) {
  AddSubmitCommand(app, action, SubmitCommand::kBench, "bench",
                   "Benchmark one variant: submit, show progress, print the statistics, "
                   "throughput, correctness and environment");
  AddSubmitCommand(app, action, SubmitCommand::kCompare, "compare",
                   "Benchmark several variants in one job, sampled interleaved on the same "
                   "inputs, and print them side by side; with --baseline VARIANT, an "
                   "interleaved A/B with a verdict over --repeat pairs");
}

}  // namespace kbench::client
