// kbctl(1), generated from its command tree (kbctl man; the .deb installs it).
#pragma once

#include <string>

#include "client/completion/command_tree.h"

namespace kbench::client {

// roff (man(7) macros): NAME, SYNOPSIS, DESCRIPTION, GLOBAL OPTIONS, one COMMANDS entry per
// command with its arguments and options, EXIT STATUS, ENVIRONMENT, FILES. `version` is shown
// in the footer.
std::string ManPage(const CommandSpec& root, const std::string& version);

}  // namespace kbench::client
