// The device-independent benchmark pipeline: inputs, float64 reference, checked run, warm-up,
// interleaved sealed sampling (every sample on inputs of its own; a secret-chosen subset checked
// afterwards: sealed_checks.h), a check of one more timed sample's outputs, statistics and the
// samples artifact. Devices plug in as DeviceRunner.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/output_defects.h"
#include "server/executor/backend.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/statistics.h"
#include "server/executor/measure/stopping_rule.h"

namespace kbench::executor {

// Runs a benchmark job (one variant, or several sampled interleaved for a compare).
// A variant that fails its correctness check fails the job (FAILED_PRECONDITION naming it):
// the checked run before any timing, or the timed sample checked after sampling, each on fresh
// inputs from a seed the executor draws for the job (never the spec's; published in the result
// afterwards); an output that is all zeros, constant or a copy of an input where the reference
// is not fails too. A variant whose median is under the physical floor fails it as
// `impossible`. A variant that keeps no sample fails it too (the sampler's FAILED_PRECONDITION
// naming the clock).
absl::StatusOr<JobRun> RunBenchmarkJob(DeviceRunner& runner, const JobContext& context);

// How every benchmark fills its results, shared with the multi-GPU jobs
// (server/executor/cuda/collective_job.cc): the spec's stopping rule over the defaults, a
// variant's statistics and the samples it keeps (all of them up to 10000, else every
// stride-th), and the criterion that stopped its sampling.
measure::StoppingCriteria CriteriaFromSpec(const v1::StoppingCriteria& s);
void FillStatistics(const measure::SampleStatistics& s, int64_t launches, v1::Statistics* out);
void KeepSamples(const std::vector<double>& per_launch, v1::VariantResult* vr);
v1::HarnessStopCriterion StopCriterionToProto(measure::StopCriterion c);

// Problems costlier than this are checked on a sample of output elements when the operation
// offers a per-element reference (a full float64 matmul reference at 4096^3 takes minutes).
inline constexpr double kFullReferenceFlopLimit = 2e9;

// The float64 reference of a problem's outputs: every element or, for costly problems with a
// reference_element function, a seeded random sample of elements. Computed once per variant
// and compared against both the checked run and the timed sample.
struct Reference {
  bool sampled = false;
  // Per output, the elements compared when sampled (empty otherwise).
  std::vector<std::vector<int64_t>> indices;
  // Per output: every element's reference value, or the sampled ones in `indices` order.
  kernels::HostTensors values;
  double tolerance = 0;
  // Per output, the operation's error scale (kernels::Operation::error_scale); empty when it
  // has none or the reference is sampled.
  kernels::HostTensors scales;
  // The inputs, for the copied-input detector: all of them (not sampled), or per output and
  // per input the values at the sampled positions (empty where the input's element count
  // differs from the output's).
  kernels::HostTensors inputs;
  std::vector<kernels::HostTensors> sampled_inputs;
  // The output dtype's thresholds for degenerate outputs.
  kernels::DefectThresholds defect_thresholds;
  // The seed the inputs were generated from.
  uint64_t input_seed = 0;
};

absl::StatusOr<Reference> ComputeReference(const kernels::Problem& problem,
                                           kernels::HostTensors inputs, uint64_t seed);

// Compares outputs (from RunChecked or TakeCheckedSample) with the reference: relative L2
// error, unwritten and non-finite elements, and degenerate outputs (kernels/output_defects.h).
v1::Correctness CompareWithReference(const Reference& reference, const CheckedOutput& out);

// A job's variant on the runner: a catalogue variant, or (for an '@' name) the job spec's user
// kernel of that name, compiled or loaded into the job's artifact directory (issue 10).
// Benchmark, profile and tool-target runs all prepare their variants here.
absl::StatusOr<std::unique_ptr<PreparedVariant>> PrepareJobVariant(
    DeviceRunner& runner, const JobContext& context, const kernels::Problem& problem, uint64_t seed,
    v1::MeasureMode mode, const BufferPlacement& placement);

// Runs the variant once on poisoned outputs and compares with the float64 reference.
absl::StatusOr<v1::Correctness> CheckVariant(PreparedVariant& variant,
                                             const kernels::Problem& problem, uint64_t seed);

}  // namespace kbench::executor
