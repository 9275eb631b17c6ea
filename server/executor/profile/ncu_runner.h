// Nsight Compute for a profile job: find `ncu`, run it on kbenchd's own ncu-target mode (one
// variant's kernels, a few launches, inside the NVTX range ncu filters on), import the report's
// raw page and turn it into NcuMetrics.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "server/common/run_budget.h"
#include "server/executor/profile/tool_search.h"

namespace kbench::executor::profile {

// The NVTX push/pop range whose kernels Nsight Compute profiles (`--nvtx-include kbench_ncu/`).
inline constexpr char kNcuRangeName[] = "kbench_ncu";
// kbenchd's command-line switch for the target mode: `kbenchd --ncu-target SPEC_FILE`.
inline constexpr char kNcuTargetFlag[] = "--ncu-target";

// Where to look for ncu: KBENCH_NCU, PATH, then the CUDA toolkit's.
struct NcuSearch : ToolSearch {
  NcuSearch();
};

// The search this process's environment asks for (KBENCH_NCU, PATH).
NcuSearch NcuSearchFromEnvironment();

// The ncu executable, or FAILED_PRECONDITION "profile.ncu: ncu not found (looked in ...)".
absl::StatusOr<std::string> FindNcu(const NcuSearch& search);

struct NcuRequest {
  std::string ncu;
  // The executable ncu starts (kbenchd; the test binaries for their own tests), with
  // `kNcuTargetFlag target_spec_path`.
  std::string target_executable;
  std::string target_spec_path;
  // The report is written to report_base + ".ncu-rep".
  std::string report_base;
  // ncu's own output (profile run), and the raw page as CSV.
  std::string log_path;
  std::string csv_path;
  double timeout_seconds = kNcuRunTimeoutSeconds;  // each run; the scheduler allows for both
};

std::vector<std::string> NcuProfileArgv(const NcuRequest& request);
std::vector<std::string> NcuImportArgv(const std::string& ncu, const std::string& report_path);

// Runs the profile and the import. FAILED_PRECONDITION (with the tail of ncu's log) when ncu
// fails or profiles no kernel; CANCELLED when `cancelled` is set meanwhile.
absl::StatusOr<std::vector<v1::NcuMetrics>> RunNcu(const NcuRequest& request,
                                                   const std::atomic<bool>* cancelled);

// readlink("/proc/self/exe").
absl::StatusOr<std::string> SelfExecutable();

}  // namespace kbench::executor::profile
