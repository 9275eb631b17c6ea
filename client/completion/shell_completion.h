// Shell completion scripts for kbctl, generated from its command tree (kbctl completion SHELL).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "client/completion/command_tree.h"

namespace kbench::client {

// bash: a completion function over a table of each command's words; zsh loads the same through
// bashcompinit; fish: `complete` lines. Unknown shells are an InvalidArgument naming the three.
absl::StatusOr<std::string> CompletionScript(const CommandSpec& root, const std::string& shell);

}  // namespace kbench::client
