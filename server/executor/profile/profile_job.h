// Profile jobs: run variants under CUPTI's activity API and return a Chrome trace, a
// key_averages-style summary, kernel resources and (optionally) Nsight Compute metrics.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "server/executor/backend.h"
#include "server/executor/device_runner.h"
#include "server/executor/profile/activity.h"

namespace kbench::executor {

// Runs a JOB_KIND_PROFILE job on a CUDA device's runner. Called by the CUDA backend.
//
// For each variant of the spec: prepare, check against the reference, warm up, then
// profile.iterations (default 10, at most 10000) RunOnce() calls, each phase inside an NVTX
// range and recorded by CUPTI. Artifacts written to the job's artifact_dir: trace.json (Chrome
// trace), summary.txt, summary.json; with profile.ncu also ncu_<variant>.ncu-rep, ncu_raw.csv
// and ncu.log. The result carries ProfileResult (kernel and category tables, busy share, ncu
// metrics) and one VariantResult per variant: its correctness, and statistics of the GPU time
// of one iteration (its kernels and transfers summed) over the recorded iterations.
// Progress phases: "check", "warmup", "profile" (samples = iterations done), "ncu".
absl::StatusOr<JobRun> RunProfileJob(DeviceRunner& runner, const JobContext& context);

namespace profile {

// What records the device's activity while a profile runs: CUPTI in a job, a fake in tests.
class ActivityRecorder {
 public:
  virtual ~ActivityRecorder() = default;
  // Now, on the clock of the records (ns). Thread-safe: a profile's counter sampler reads it on
  // its own thread.
  virtual uint64_t Now() = 0;
  // Whether to note each launched kernel's function (for attributes the records lack); on at
  // start. The job turns it off while it warms up and measures.
  virtual void NoteLaunches(bool on) { (void)on; }
  // Stops recording and returns what was recorded (spans are filled in by the job).
  virtual absl::StatusOr<ActivityLog> Stop() = 0;
};
using ActivityRecorderFactory = std::function<absl::StatusOr<std::unique_ptr<ActivityRecorder>>()>;

// RunProfileJob with another recorder than CUPTI.
absl::StatusOr<JobRun> RunProfileJobWith(DeviceRunner& runner, const JobContext& context,
                                         const ActivityRecorderFactory& recorder);

}  // namespace profile
}  // namespace kbench::executor
