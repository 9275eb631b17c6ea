// kbctl bench / compare: submit a benchmark of one variant, or of several sampled interleaved,
// follow it, and print the result.
#include <memory>

#include "client/commands/commands.h"
#include "client/job_wait.h"
#include "client/spec_options.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status RunBenchmark(Session& session, const SpecFlags& flags, SubmitCommand command) {
  KBENCH_ASSIGN_OR_RETURN(std::optional<v1::Job> job, SubmitAndWait(session, flags, command));
  if (!job.has_value()) return absl::OkStatus();  // --no-wait: the job was printed.
  return PrintJobReport(session, *job);
}

void AddSubmitCommand(CLI::App& app, Action* action, SubmitCommand command, const char* name,
                      const char* description) {
  auto flags = std::make_shared<SpecFlags>();
  CLI::App* cmd = app.add_subcommand(name, description);
  AddSpecFlags(cmd, command, flags.get());
  cmd->callback([flags, action, command] {
    *action = [flags, command](Session& s) { return RunBenchmark(s, *flags, command); };
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
