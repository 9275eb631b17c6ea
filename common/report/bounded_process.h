// Runs a helper program (gnuplot) without a shell, with its output in a log file and a time
// limit after which its process group is killed: a hung helper never holds a daemon thread.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kbench::report {

// Runs argv[0] (a path) with argv; stdout and stderr go to `log_path`. OK when it exited with
// 0; DEADLINE_EXCEEDED when it ran past `timeout_seconds` (then killed); INTERNAL naming the
// exit code or signal and the log's tail otherwise; NOT_FOUND when it cannot be started.
absl::Status RunBounded(const std::vector<std::string>& argv, const std::string& log_path,
                        double timeout_seconds);

// The first executable file named `name` in $PATH, then in /usr/bin; empty when none.
std::string FindProgram(const std::string& name);

}  // namespace kbench::report
