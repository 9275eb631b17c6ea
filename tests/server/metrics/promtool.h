// Test helper: runs `promtool check metrics` (Debian's prometheus package) on an exposition
// text and returns the problems it reports, less the ones kbench accepts on purpose.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace kbench::testing {

struct PromtoolResult {
  std::string output;      // everything promtool printed
  std::string unexpected;  // its problems that kbench does not accept, one per line
};

// The GPU gauges carry dcgm-exporter's `modelName` label and its names (a counter without
// _total) on purpose, so that dcgm-exporter's dashboards and alerts work on kbench's series;
// promtool's style rules flag exactly those two things, and only on GPU series.
inline bool AcceptedPromtoolProblem(const std::string& line) {
  const bool gpu_series =
      absl::StartsWith(line, "DCGM_FI_DEV_") || absl::StartsWith(line, "kbench_gpu_");
  if (gpu_series &&
      absl::EndsWith(line, "label names should be written in 'snake_case' not 'camelCase'")) {
    return true;
  }
  return line ==
         "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter metrics should have \"_total\" "
         "suffix";
}

inline absl::StatusOr<PromtoolResult> PromtoolCheckMetrics(const std::string& promtool,
                                                           const std::string& exposition) {
  if (promtool.empty() || absl::StrContains(promtool, "NOTFOUND")) {
    return absl::FailedPreconditionError(
        "promtool not found; install Debian's `prometheus` package");
  }
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / absl::StrCat("kbench_scrape_", getpid(), ".txt");
  std::ofstream(file) << exposition;
  const std::string command = absl::StrCat(promtool, " check metrics < ", file.string(), " 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return absl::InternalError("popen(promtool) failed");
  PromtoolResult result;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) result.output.append(buffer, n);
  const int status = pclose(pipe);
  std::filesystem::remove(file);
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && !AcceptedPromtoolProblem(line)) result.unexpected += line + "\n";
  }
  if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
    // 3 is promtool's "lint problems found"; anything else means it did not check at all.
    result.unexpected += absl::StrCat("promtool exit status ", status, "\n");
  }
  return result;
}

}  // namespace kbench::testing
