// kbctl compile OP --source FILE --entry NAME (--arch sm_XX | --device cuda:N): a compile-only
// job (issue 10, item 4). Prints the compiler, each kernel's resources and occupancy for the
// launch given, and the log; the PTX, cubin and SASS are the job's artifacts.
#include <memory>

#include "client/commands/commands.h"
#include "client/job_wait.h"
#include "client/spec_options.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status RunCompile(Session& session, const SpecFlags& flags) {
  KBENCH_ASSIGN_OR_RETURN(std::optional<v1::Job> job,
                          SubmitAndWait(session, flags, SubmitCommand::kCompile));
  if (!job.has_value()) return absl::OkStatus();  // --no-wait: the job was printed.
  return PrintJobReport(session, *job);
}

}  // namespace

void AddCompileCommand(CLI::App& app, Action* action) {
  auto flags = std::make_shared<SpecFlags>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile your kernel for an architecture without running it (no GPU needed): resources, "
      "occupancy, log; PTX, cubin and SASS as artifacts (`kbctl artifacts ls JOB`)");
  AddSpecFlags(cmd, SubmitCommand::kCompile, flags.get());
  cmd->callback(
      [flags, action] { *action = [flags](Session& s) { return RunCompile(s, *flags); }; });
}

}  // namespace kbench::client
