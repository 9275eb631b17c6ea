// kbctl completion bash|zsh|fish and kbctl man: generated from the command tree that parses
// kbctl's own command line, so they list exactly the commands and flags this kbctl takes.
#include "client/commands/commands.h"
#include "client/completion/command_tree.h"
#include "client/completion/man_page.h"
#include "client/completion/shell_completion.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {

void AddCompletionCommands(CLI::App& app, Action* action) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print the shell completion script for bash, zsh or fish (e.g. source <(kbctl completion "
      "bash)); needs no server");
  completion->add_option("SHELL", *shell, "bash, zsh or fish")->required();
  const CLI::App* root = &app;
  completion->callback([root, shell, action] {
    *action = [root, shell](Session& s) -> absl::Status {
      absl::StatusOr<std::string> script = CompletionScript(DescribeCommands(*root), *shell);
      if (!script.ok()) return UsageError(script.status().message());
      s.out() << *script;
      return absl::OkStatus();
    };
  });
  app.add_subcommand("man", "Print kbctl's manual page (roff; e.g. kbctl man | man -l -)")
      ->callback([root, action] {
        *action = [root](Session& s) {
          s.out() << ManPage(DescribeCommands(*root), KBENCH_VERSION);
          return absl::OkStatus();
        };
      });
}

}  // namespace kbench::client
