// Human-readable views of jobs: one job described in full (spec, timing, error, artifacts,
// result, environment), the compare table of a multi-variant job, and the job list.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

// The status code a FAILED or CANCELLED job ended with (kOk for any other): Job.error_status, or,
// from a kbenchd older than that field, the code Job.error_code names (UNKNOWN where a failed
// job's name is none).
absl::StatusCode JobStatusCode(const v1::Job& job);

// Everything about one job, as `kbctl get` shows it.
std::string RenderJob(const v1::Job& job);
// The result part: a variant's statistics (one variant), the side-by-side table (several), or the
// profile tables; then the environment. Empty when there is no result yet.
std::string RenderResult(const v1::Job& job);
// One variant's statistics, throughput, correctness and stop reason.
std::string RenderVariant(const v1::VariantResult& v, const v1::JobSpec& spec);
// Variants side by side: time, noise, GB/s and TFLOP/s with their fractions of the device's
// copy bandwidth and peak, speed-up over the first variant, correctness, stop reason. Columns a
// job has no data for (no FLOPs for copy) are left out.
std::string RenderCompareTable(const v1::JobResult& result);
std::string RenderEnvironment(const v1::Environment& env);
// The job list of `kbctl jobs`; ages are relative to `now`.
std::string RenderJobsTable(const std::vector<v1::Job>& jobs, absl::Time now);

// "pass (1.2e-07 <= 1e-05)", "FAIL (...)" or "unchecked".
std::string CorrectnessSummary(const v1::Correctness& c);

}  // namespace kbench::client
