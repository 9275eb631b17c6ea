// The device-independent benchmark pipeline: inputs, float64 reference, checked run, warm-up,
// interleaved sampling, statistics and the samples artifact. Devices plug in as DeviceRunner.
#pragma once

#include "server/executor/backend.h"
#include "server/executor/device_runner.h"

namespace kbench::executor {

// Runs a benchmark job (one variant, or several sampled interleaved for a compare).
// A variant that fails its correctness check fails the job (FAILED_PRECONDITION naming it),
// before any timing.
absl::StatusOr<JobRun> RunBenchmarkJob(DeviceRunner& runner, const JobContext& context);

// Runs the variant once on poisoned outputs and compares with the float64 reference: every
// element, or (for costly problems with a reference_element function) a seeded random sample.
absl::StatusOr<v1::Correctness> CheckVariant(PreparedVariant& variant,
                                             const kernels::Problem& problem, uint64_t seed);

}  // namespace kbench::executor
