// compute-sanitizer for benchmarks with `sanitize` (issue 10, item 6): its command line, its
// run on the executor's tool target mode (ncu_target.h), and its report read back.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/common/run_budget.h"
#include "server/executor/profile/tool_search.h"

namespace kbench::executor::profile {

// Where to look for compute-sanitizer: KBENCH_COMPUTE_SANITIZER, PATH, then the CUDA toolkit's.
struct SanitizerSearch : ToolSearch {
  SanitizerSearch();
};

struct MemcheckRequest {
  std::string sanitizer;
  // The executable compute-sanitizer starts, with `kNcuTargetFlag target_spec_path`.
  std::string target_executable;
  std::string target_spec_path;
  // memcheck's report (--log-file), and the target's own stdout and stderr.
  std::string report_path;
  std::string output_path;
  double timeout_seconds = kSanitizerRunTimeoutSeconds;
};

std::vector<std::string> MemcheckArgv(const MemcheckRequest& request);

// What a memcheck report says: its ERROR SUMMARY count (-1 when the report has none, i.e. the
// tool did not finish) and the first errors, without the tool's line prefix, for a message.
struct MemcheckReport {
  int64_t errors = -1;
  std::string first_errors;
};

MemcheckReport ParseMemcheckReport(const std::string& text, size_t max_excerpt_bytes);

struct MemcheckRun {
  MemcheckReport report;
  double seconds = 0;
};

// Runs the target under memcheck. The report's errors (if any) are the caller's to judge; an
// error status means there is no verdict: FAILED_PRECONDITION when the target failed with no
// memory error (its output's tail), CANCELLED when `cancelled` was set meanwhile.
absl::StatusOr<MemcheckRun> RunMemcheck(const MemcheckRequest& request,
                                        const std::atomic<bool>* cancelled);

}  // namespace kbench::executor::profile
