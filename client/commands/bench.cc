// kbctl bench / compare: submit a benchmark of one variant, or of several sampled interleaved,
// follow it, and print the result.
#include <memory>
#include <optional>
#include <string>

#include "client/commands/commands.h"
#include "client/errors.h"
#include "client/job_wait.h"
#include "client/spec_options.h"
#include "client/verdict/diff_flags.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// --baseline JOB and the verdict's flags.
struct BaselineFlags {
  std::string job;
  VerdictFlags verdict;
};

absl::Status RunBenchmark(Session& session, const SpecFlags& flags, SubmitCommand command,
                          const BaselineFlags& baseline_flags) {
  std::optional<v1::Job> baseline;
  if (baseline_flags.job.empty() &&
      (!baseline_flags.verdict.fail_on.empty() || !baseline_flags.verdict.min_effect.empty())) {
    return UsageError("--fail-on and --min-effect need --baseline JOB");
  }
  if (!baseline_flags.job.empty()) {
    // Checked before submitting: a bad flag or an unusable baseline costs no device time.
    KBENCH_RETURN_IF_ERROR(CheckVerdictFlags(baseline_flags.verdict));
    KBENCH_ASSIGN_OR_RETURN(baseline, session.connection().GetJob(baseline_flags.job));
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

void AddSubmitCommand(CLI::App& app, Action* action, SubmitCommand command, const char* name,
                      const char* description) {
  auto flags = std::make_shared<SpecFlags>();
  auto baseline = std::make_shared<BaselineFlags>();
  CLI::App* cmd = app.add_subcommand(name, description);
  AddSpecFlags(cmd, command, flags.get());
  cmd->add_option("--baseline", baseline->job,
                  "After the job, compare it with this earlier job (as kbctl diff JOB NEW); "
                  "with -o json only the comparison is printed")
      ->type_name("JOB");
  (void)AddVerdictFlags(cmd, &baseline->verdict);
  cmd->callback([flags, baseline, action, command] {
    *action = [flags, baseline, command](Session& s) {
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
                   "inputs, and print them side by side");
}

}  // namespace kbench::client
