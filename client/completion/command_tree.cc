// Walking CLI11's tree into CommandSpec.
#include "client/completion/command_tree.h"

#include <algorithm>

#include "absl/strings/match.h"

namespace kbench::client {
namespace {

// Type names of values that are paths: their completion offers the file system.
bool IsPathType(const std::string& type_name) {
  for (const char* path : {"FILE", "DIR", "PATH", "SOURCE"}) {
    if (absl::StrContains(type_name, path)) return true;
  }
  return false;
}

OptionSpec DescribeOption(const CLI::Option& option) {
  OptionSpec spec;
  spec.long_names = option.get_lnames();
  spec.short_names = option.get_snames();
  spec.description = option.get_description();
  spec.takes_value = option.get_expected_max() != 0;
  spec.type_name = spec.takes_value ? option.get_type_name() : "";
  spec.takes_path = spec.takes_value && IsPathType(spec.type_name);
  return spec;
}

}  // namespace

CommandSpec DescribeCommands(const CLI::App& app) {
  CommandSpec spec;
  spec.name = app.get_name();
  spec.description = app.get_description();
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional()) {
      spec.positionals.push_back(option->get_name());
      continue;
    }
    const std::vector<std::string>& names = option->get_lnames();
    if (std::find(names.begin(), names.end(), "help") != names.end()) continue;
    spec.options.push_back(DescribeOption(*option));
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) {
         // Hidden subcommands (no group) stay out of completions and the man page.
         return !s->get_group().empty();
       })) {
    spec.commands.push_back(DescribeCommands(*sub));
  }
  return spec;
}

namespace {

void AddPaths(const std::string& path, const CommandSpec& spec,
              std::vector<std::pair<std::string, const CommandSpec*>>* out) {
  out->emplace_back(path, &spec);
  for (const CommandSpec& sub : spec.commands) AddPaths(path + " " + sub.name, sub, out);
}

}  // namespace

std::vector<std::pair<std::string, const CommandSpec*>> CommandPaths(const CommandSpec& root) {
  std::vector<std::pair<std::string, const CommandSpec*>> out;
  AddPaths(root.name, root, &out);
  return out;
}

}  // namespace kbench::client
