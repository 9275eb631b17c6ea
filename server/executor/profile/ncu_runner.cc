// ncu's command lines and its two runs (profile, import).
#include "server/executor/profile/ncu_runner.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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

bool IsExecutableFile(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0;
}

constexpr size_t kLogTail = 1500;

}  // namespace

NcuSearch NcuSearchFromEnvironment() {
  NcuSearch search;
  if (const char* v = std::getenv("KBENCH_NCU"); v != nullptr) search.explicit_path = v;
  if (const char* v = std::getenv("PATH"); v != nullptr) search.path_env = v;
  return search;
}

absl::StatusOr<std::string> FindNcu(const NcuSearch& search) {
  if (!search.explicit_path.empty()) {
    if (IsExecutableFile(search.explicit_path)) return search.explicit_path;
    return absl::FailedPreconditionError(
        absl::StrCat("profile.ncu: ncu not found (KBENCH_NCU=", search.explicit_path,
                     " is not an executable file)"));
  }
  std::vector<std::string> looked;
  for (absl::string_view dir : absl::StrSplit(search.path_env, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/ncu");
    if (IsExecutableFile(candidate)) return candidate;
    looked.push_back(std::string(dir));
  }
  for (const std::string& f : search.fallbacks) {
    if (IsExecutableFile(f)) return f;
    looked.push_back(f);
  }
  return absl::FailedPreconditionError(
      absl::StrCat("profile.ncu: ncu not found (looked in KBENCH_NCU (unset), PATH: ",
                   looked.empty() ? "(empty)" : absl::StrJoin(looked, ", "),
                   "); install Nsight Compute or set KBENCH_NCU to its ncu"));
}

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
      RunProcess(NcuProfileArgv(r), r.log_path, r.log_path, r.timeout_seconds, cancelled);
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
