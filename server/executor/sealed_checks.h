// The benchmark pipeline's side of sealed sampling (issue 23): each sample stream (a variant at
// one placement) seals its samples with seeds from the job's secret, keeps what a check needs,
// and after sampling compares a secret-chosen subset with the float64 reference of each
// sample's own inputs, verifies that no sample changed its inputs, and judges the checked
// samples' times against the others'.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/sampler.h"
#include "server/executor/sealed_samples.h"

namespace kbench::executor {

// The reference of `problem` on `inputs` at `positions` (per output), shaped for
// CompareWithReference against a SealedSample's outputs: for a pointwise operation `inputs`
// are the values at the positions only (PreparedVariant::SealedInputs) and the reference is
// that of the compact problem; else a per-element reference where the operation has one and
// the problem is costly, else the whole reference, picked.
absl::StatusOr<Reference> ReferenceAtPositions(const kernels::Problem& problem,
                                               const kernels::HostTensors& inputs,
                                               const std::vector<std::vector<int64_t>>& positions,
                                               uint64_t seed);

// One stream of sealed samples. Not thread-safe; lives from before sampling to the checks.
class SealedStream {
 public:
  // Sets the variant's read-back positions (drawn from the secret) on `variant`.
  static absl::StatusOr<SealedStream> Start(uint64_t secret, uint64_t stream,
                                            const kernels::Problem& problem,
                                            PreparedVariant* variant);

  // The sampler's function: one sealed sample, its read-back kept for the checks.
  measure::SampleFn SampleFn();

  // After sampling: the input check, the secret-chosen samples against their references, and
  // their times against the others' (`per_launch`: the stream's kept samples in order). Fails
  // (FAILED_PRECONDITION naming `where`, e.g. "softmax/@mine", and the sample) on the first
  // violation; adds what it saw to `out`.
  absl::Status Check(const std::vector<double>& per_launch, const std::string& where,
                     v1::SealedChecks* out) const;

 private:
  SealedStream(uint64_t secret, uint64_t stream, const kernels::Problem& problem,
               PreparedVariant* variant)
      : secret_(secret),
        stream_(stream),
        problem_(problem),
        variant_(variant),
        reservoir_(secret, stream) {}
  absl::Status CheckInputsUnchanged(const std::string& where) const;

  uint64_t secret_, stream_;
  kernels::Problem problem_;
  PreparedVariant* variant_;
  std::vector<std::vector<int64_t>> positions_;
  SealedReservoir reservoir_;
  uint64_t calls_ = 0;
  // The first kept sample whose inputs changed, and how many elements did.
  int64_t first_changed_sample_ = -1;
  int64_t changed_elements_ = 0;
};

}  // namespace kbench::executor
