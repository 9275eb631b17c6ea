// kbctl's commands as data, read from the CLI11 tree that parses them: the one source that shell
// completions and the man page are generated from, so neither can drift from the flags.
#pragma once

#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace kbench::client {

struct OptionSpec {
  std::vector<std::string> long_names;   // without "--"
  std::vector<std::string> short_names;  // without "-"
  std::string description;
  // Takes a value (--shape 4096); false for flags (--all).
  bool takes_value = false;
  std::string type_name;  // "FILE", "S1,S2,...", "" for a flag
  // The value names a file or directory (completed from the file system).
  bool takes_path = false;
};

struct CommandSpec {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;       // without --help
  std::vector<std::string> positionals;  // "JOB", "OP", ...
  std::vector<CommandSpec> commands;
};

// The tree under `app` (the root: kbctl, its global options, every subcommand).
CommandSpec DescribeCommands(const CLI::App& app);

// Every command's path from the root ("kbctl", "kbctl config", "kbctl config view", ...), depth
// first, with its spec.
std::vector<std::pair<std::string, const CommandSpec*>> CommandPaths(const CommandSpec& root);

}  // namespace kbench::client
