// A benchmark job over a gang of devices (issue 30): a collective of the catalogue, run by the
// lead device's executor on every device of JobSpec.devices (lead first), one stream per
// device. Per variant: fresh seeded inputs on every rank, poisoned outputs, a checked call whose
// every rank's output is compared with its float64 reference; warm-up; samples interleaved
// across the variants, each timing one call on every rank (the slowest rank's time); a timed
// call checked again on fresh inputs. The result carries the usual statistics, with bytes/s
// the bus bandwidth, and VariantResult.collective (nccl-tests' algorithm and bus bandwidth,
// per-rank medians, the slowest rank, the interconnect's measured peak).
#pragma once

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "server/executor/backend.h"
#include "server/executor/cuda/cuda_runner.h"

namespace kbench::executor::cuda {

// Whether the job is one for RunCollectiveJob: its operation needs several devices, or it
// holds several (a multi-device job of a one-device operation fails there, saying so).
bool IsCollectiveJob(const v1::JobSpec& spec);

// Runs it. `lead` is this executor's device, which must be JobSpec.devices[0]. A wrong output
// fails the job (FAILED_PRECONDITION naming variant, rank and device); a CUDA or NCCL error
// names the device; a rank that does not finish a call within its deadline, or a cancel, aborts
// NCCL. After a failure that may have left work or a broken context on any device of the gang,
// `lead` needs a restart (CudaRunner::NeedsRestart), so the next job starts in a fresh process.
// The current device is the lead's again on return.
absl::StatusOr<JobRun> RunCollectiveJob(CudaRunner& lead, const JobContext& context);

}  // namespace kbench::executor::cuda
