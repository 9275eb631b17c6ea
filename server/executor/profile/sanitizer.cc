// compute-sanitizer's memcheck run and report (sanitizer.h).
#include "server/executor/profile/sanitizer.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "server/executor/profile/ncu_runner.h"
#include "server/executor/profile/subprocess.h"

namespace kbench::executor::profile {
namespace {

constexpr size_t kOutputTail = 1500;
// Every line of compute-sanitizer's report starts with it.
constexpr absl::string_view kLinePrefix = "========= ";
constexpr absl::string_view kSummary = "ERROR SUMMARY: ";
constexpr absl::string_view kApiError = "Program hit ";

std::string ReadWhole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

}  // namespace

SanitizerSearch::SanitizerSearch() {
  name = "compute-sanitizer";
  field = "sanitize";
  env_var = "KBENCH_COMPUTE_SANITIZER";
  install_hint = "install the CUDA toolkit's compute-sanitizer";
  fallbacks = {"/usr/local/cuda/bin/compute-sanitizer",
               "/usr/local/cuda/compute-sanitizer/compute-sanitizer"};
}

std::vector<std::string> MemcheckArgv(const MemcheckRequest& r) {
  return {r.sanitizer, "--tool", "memcheck",
          // The report apart from the target's own output, and bounded.
          "--log-file", r.report_path, "--print-limit", "20",
          // The kernel's side of each error; the host's is kbench's own launch code.
          "--show-backtrace", "device", r.target_executable, kNcuTargetFlag, r.target_spec_path};
}

MemcheckReport ParseMemcheckReport(const std::string& text, size_t max_excerpt_bytes) {
  MemcheckReport report;
  bool in_error = false;
  bool cut = false;  // the excerpt leaves something out
  bool api_error_seen = false;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, kLinePrefix)) continue;
    if (absl::ConsumePrefix(&line, kSummary)) {
      // "3 errors", "1 error", "0 errors".
      const absl::string_view count = line.substr(0, line.find(' '));
      int64_t n = 0;
      if (absl::SimpleAtoi(count, &n)) report.errors = n;
      continue;
    }
    // An error starts at an unindented line other than the banner; its details are indented.
    const bool indented = absl::StartsWith(line, " ");
    if (absl::StrContains(line, "Host Frame") || absl::StrContains(line, "host backtrace"))
      continue;
    if (!indented) {
      in_error = !absl::StartsWith(line, "COMPUTE-SANITIZER") && !line.empty();
      // After a faulting access every later CUDA call fails alike ("Program hit
      // cudaErrorLaunchFailure ... on CUDA API call to cudaFree"): the first says it.
      if (absl::StartsWith(line, kApiError)) {
        if (api_error_seen) in_error = false;
        api_error_seen = true;
      }
    }
    if (!in_error) continue;
    if (report.first_errors.size() >= max_excerpt_bytes) {
      cut = true;
      continue;
    }
    if (!report.first_errors.empty()) report.first_errors += indented ? "; " : " | ";
    absl::StrAppend(&report.first_errors, absl::StripAsciiWhitespace(line));
  }
  if (report.first_errors.size() > max_excerpt_bytes) {
    report.first_errors.resize(max_excerpt_bytes);
    cut = true;
  }
  if (cut) report.first_errors += " ...";
  return report;
}

absl::StatusOr<MemcheckRun> RunMemcheck(const MemcheckRequest& r,
                                        const std::atomic<bool>* cancelled) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ProcessResult> run =
      RunProcess(MemcheckArgv(r), r.output_path, r.output_path, r.timeout_seconds, cancelled,
                 CudaToolChildSetup(DirectoryOf(r.output_path), r.timeout_seconds));
  if (!run.ok()) return run.status();
  if (run->cancelled) return absl::CancelledError("cancelled while compute-sanitizer ran");
  MemcheckRun out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.report = ParseMemcheckReport(ReadWhole(r.report_path), 1200);
  if (out.report.errors > 0) return out;  // the target may well have failed because of them
  if (!run->ok() || out.report.errors < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "sanitize: under compute-sanitizer the variant's run ", run->Describe(r.timeout_seconds),
        out.report.errors < 0 ? " before memcheck's summary" : " with no memory error",
        "; its output ends: ", FileTail(r.output_path, kOutputTail)));
  }
  return out;
}

}  // namespace kbench::executor::profile
