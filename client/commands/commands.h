// kbctl's subcommands. Each Add*Command(s) adds its subcommands to the root app; when one of
// them is chosen on the command line, its callback stores what to run in *action, and kbctl.cc
// runs it with a Session once parsing is over.
#pragma once

#include <functional>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "client/session.h"

namespace kbench::client {

using Action = std::function<absl::Status(Session&)>;

void AddKernelsCommand(CLI::App& app, Action* action);    // kernels [OP]
void AddDevicesCommand(CLI::App& app, Action* action);    // devices
void AddNodesCommand(CLI::App& app, Action* action);      // nodes
void AddBenchCommands(CLI::App& app, Action* action);     // bench, compare
void AddCompileCommand(CLI::App& app, Action* action);    // compile
void AddJobCommands(CLI::App& app, Action* action);       // get, jobs, watch, cancel
void AddArtifactCommands(CLI::App& app, Action* action);  // artifacts ls, artifacts get
void AddProfileCommand(CLI::App& app, Action* action);    // profile
void AddHealthCommand(CLI::App& app, Action* action);     // health
void AddConfigCommands(CLI::App& app, Action* action);    // config set-context, use-context, ...
void AddUsageCommand(CLI::App& app, Action* action);      // usage [OWNER]
void AddSweepCommands(CLI::App& app, Action* action);     // sweep, sweep get, sweeps, report
void AddDiffCommand(CLI::App& app, Action* action);       // diff JOB_A JOB_B
void AddHistoryCommands(CLI::App& app, Action* action);   // history, leaderboard
void AddVariantsCommands(CLI::App& app, Action* action);  // variants add, list, show, rm
void AddBisectCommand(CLI::App& app, Action* action);     // bisect OP
void AddReproCommands(CLI::App& app, Action* action);     // repro JOB|FILE, bundle JOB
void AddVersionCommand(CLI::App& app, Action* action);    // version [--client]
// completion SHELL, man: from the tree of every command added before it (add it last).
void AddCompletionCommands(CLI::App& app, Action* action);

}  // namespace kbench::client
