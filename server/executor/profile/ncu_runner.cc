// ncu's command lines and its two runs (profile, import).
#include "server/executor/profile/ncu_runner.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "server/executor/profile/ncu_csv.h"
#include "server/executor/profile/subprocess.h"

namespace kbench::executor::profile {
namespace {

constexpr size_t kLogTail = 1500;

}  // namespace

NcuSearch::NcuSearch() {
  name = "ncu";
  field = "profile.ncu";
  env_var = "KBENCH_NCU";
  install_hint = "install Nsight Compute";
  fallbacks = {"/usr/local/cuda/bin/ncu"};
}

NcuSearch NcuSearchFromEnvironment() {
  NcuSearch search;
  static_cast<ToolSearch&>(search) = WithEnvironment(search);
  return search;
}

absl::StatusOr<std::string> FindNcu(const NcuSearch& search) { return FindTool(search); }

std::vector<std::string> NcuProfileArgv(const NcuRequest& r) {
  return {r.ncu,
          // Measure the card as it is: ncu would otherwise lock clocks to base.
          "--clock-control", "none",
          // Only the kernels inside the target's measured range, not its set-up.
          "--nvtx", "--nvtx-include", absl::StrCat(kNcuRangeName, "/"), "--metrics",
          NcuMetricList(), "--export", r.report_base, "--force-overwrite", r.target_executable,
          kNcuTargetFlag, r.target_spec_path};
}

std::vector<std::string> NcuImportArgv(const std::string& ncu, const std::string& report_path) {
  // Mangled names, demangled by us: the same names as the summary's rows.
  return {ncu,
          "--import",
          report_path,
          "--csv",
          "--page",
          "raw",
          "--print-units",
          "base",
          "--print-kernel-base",
          "mangled"};
}

absl::StatusOr<std::vector<v1::NcuMetrics>> RunNcu(const NcuRequest& r,
                                                   const std::atomic<bool>* cancelled) {
  absl::StatusOr<ProcessResult> run =
      RunProcess(NcuProfileArgv(r), r.log_path, r.log_path, r.timeout_seconds, cancelled,
                 CudaToolChildSetup(DirectoryOf(r.log_path), r.timeout_seconds));
  if (!run.ok()) return run.status();
  if (run->cancelled) return absl::CancelledError("cancelled while Nsight Compute ran");
  if (!run->ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("profile.ncu: ncu ", run->Describe(r.timeout_seconds),
                     "; its output ends: ", FileTail(r.log_path, kLogTail)));
  }
  const std::string report = r.report_base + ".ncu-rep";
  if (access(report.c_str(), R_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "profile.ncu: ncu wrote no report (", report,
        "): was any kernel profiled? Its output ends: ", FileTail(r.log_path, kLogTail)));
  }
  const std::string import_log = r.log_path + ".import";
  absl::StatusOr<ProcessResult> import = RunProcess(NcuImportArgv(r.ncu, report), r.csv_path,
                                                    import_log, r.timeout_seconds, cancelled);
  if (!import.ok()) return import.status();
  if (import->cancelled) return absl::CancelledError("cancelled while Nsight Compute ran");
  if (!import->ok()) {
    return absl::FailedPreconditionError(absl::StrCat("profile.ncu: ncu --import ",
                                                      import->Describe(r.timeout_seconds), ": ",
                                                      FileTail(import_log, kLogTail)));
  }
  std::ifstream f(r.csv_path);
  std::stringstream csv;
  csv << f.rdbuf();
  absl::StatusOr<std::vector<NcuLaunch>> launches = ParseNcuRawCsv(csv.str());
  if (!launches.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("profile.ncu: cannot read ncu's raw page: ", launches.status().message()));
  }
  if (launches->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("profile.ncu: Nsight Compute profiled no kernel; its output ends: ",
                     FileTail(r.log_path, kLogTail)));
  }
  return SummarizeNcu(*launches);
}

absl::StatusOr<std::string> SelfExecutable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) {
    return absl::InternalError(absl::StrCat("readlink(/proc/self/exe): ", strerror(errno)));
  }
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace kbench::executor::profile
