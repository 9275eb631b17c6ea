// Sealed sample streams and their checks after sampling (sealed_checks.h).
#include "server/executor/sealed_checks.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <numeric>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "kernels/output_defects.h"

namespace kbench::executor {
namespace {

// References computed at once: each holds a sample's inputs and outputs in float64 (a 4096^2
// softmax: 256 MB), so the host's cores are used without its memory running out.
size_t ConcurrentReferences() {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
}

// The values of `full` (one tensor per output) at `positions`.
kernels::HostTensors Pick(const kernels::HostTensors& full,
                          const std::vector<std::vector<int64_t>>& positions) {
  kernels::HostTensors at(positions.size());
  for (size_t o = 0; o < positions.size() && o < full.size(); ++o) {
    for (const int64_t p : positions[o]) at[o].push_back(full[o][static_cast<size_t>(p)]);
  }
  return at;
}

// One checked sample's comparison: its reference (the costly part, on a worker thread).
struct SampleCheck {
  int64_t index = 0;
  v1::Correctness correctness;
  // Positions read back that still held the sample's output pattern (explains a failure).
  int64_t unwritten = 0;
};

// A read-back holds the values in position order: index k of it is position k.
std::vector<int64_t> ReadBackOrder(size_t count) {
  std::vector<int64_t> order(count);
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

// A pointwise operation's reference at the positions, from the inputs there: the reference of
// the compact problem of `count` elements.
void PointwiseReference(const kernels::Operation& op, const kernels::Problem& problem,
                        const kernels::HostTensors& inputs, size_t count, Reference* ref) {
  kernels::Problem compact = problem;
  compact.shape = {static_cast<int64_t>(count)};
  ref->values.assign(1, std::vector<double>(count, 0.0));
  op.reference(compact, inputs, &ref->values);
  if (op.error_scale) {
    ref->scales.assign(1, std::vector<double>(count, 0.0));
    op.error_scale(compact, inputs, &ref->scales);
  }
  ref->indices.push_back(ReadBackOrder(count));
  ref->sampled_inputs.push_back(inputs);
}

}  // namespace

absl::StatusOr<Reference> ReferenceAtPositions(const kernels::Problem& problem,
                                               const kernels::HostTensors& inputs,
                                               const std::vector<std::vector<int64_t>>& positions,
                                               uint64_t seed) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("unknown operation " + problem.op);
  const kernels::Layout layout = op->layout(problem);
  if (positions.size() != layout.outputs.size()) {
    return absl::InternalError("sealed positions do not match the operation's outputs");
  }
  Reference ref;
  ref.sampled = true;
  ref.tolerance = op->tolerance(problem);
  ref.defect_thresholds = kernels::DefectThresholdsFor(problem.dtype);
  ref.input_seed = seed;
  const bool per_element = op->reference_element &&
                           static_cast<double>(op->cost(problem).flops) > kFullReferenceFlopLimit;
  if (op->pointwise) {
    PointwiseReference(*op, problem, inputs, positions.front().size(), &ref);
    return ref;
  }
  if (per_element) {
    ref.values.resize(positions.size());
    for (size_t o = 0; o < positions.size(); ++o) {
      for (const int64_t p : positions[o]) {
        ref.values[o].push_back(op->reference_element(problem, inputs, o, p));
      }
    }
  } else {
    kernels::HostTensors full(layout.outputs.size());
    for (size_t o = 0; o < full.size(); ++o) full[o].assign(layout.outputs[o].elements, 0);
    op->reference(problem, inputs, &full);
    ref.values = Pick(full, positions);
    if (op->error_scale) {
      for (size_t o = 0; o < full.size(); ++o) std::fill(full[o].begin(), full[o].end(), 0.0);
      op->error_scale(problem, inputs, &full);
      ref.scales = Pick(full, positions);
    }
  }
  for (size_t o = 0; o < positions.size(); ++o) {
    ref.indices.push_back(ReadBackOrder(positions[o].size()));
    kernels::HostTensors& at = ref.sampled_inputs.emplace_back(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (static_cast<int64_t>(inputs[i].size()) != layout.outputs[o].elements) continue;
      for (const int64_t p : positions[o]) at[i].push_back(inputs[i][static_cast<size_t>(p)]);
    }
  }
  return ref;
}

namespace {

// Compares each chosen sample with the reference of its own inputs: the inputs come back one
// sample at a time (the device is one), the references run in parallel.
absl::StatusOr<std::vector<SampleCheck>> CompareChosenSamples(
    PreparedVariant& variant, const kernels::Problem& problem,
    const std::vector<std::vector<int64_t>>& positions, const std::vector<RetainedSample>& chosen) {
  std::vector<std::future<absl::StatusOr<SampleCheck>>> running;
  std::vector<SampleCheck> done;
  const auto drain = [&](size_t keep) -> absl::Status {
    while (running.size() > keep) {
      KBENCH_ASSIGN_OR_RETURN(SampleCheck c, running.front().get());
      running.erase(running.begin());
      done.push_back(std::move(c));
    }
    return absl::OkStatus();
  };
  for (const RetainedSample& r : chosen) {
    KBENCH_ASSIGN_OR_RETURN(std::function<kernels::HostTensors()> convert,
                            variant.SealedInputs(r.seal));
    running.push_back(std::async(
        std::launch::async,
        [&problem, &positions, &r, convert = std::move(convert)]() -> absl::StatusOr<SampleCheck> {
          const kernels::HostTensors inputs = convert();
          KBENCH_ASSIGN_OR_RETURN(
              const Reference ref,
              ReferenceAtPositions(problem, inputs, positions, r.seal.input_seed));
          // An element still holding the pattern is judged by its value: the pattern can
          // equal the answer by chance (a bf16 output matches it at some of 4096 positions in
          // most samples), and an unwritten element that does not is wrong anyway.
          CheckedOutput got;
          got.outputs = r.outputs;
          return SampleCheck{r.index, CompareWithReference(ref, got), r.unwritten};
        }));
    KBENCH_RETURN_IF_ERROR(drain(ConcurrentReferences() - 1));
  }
  KBENCH_RETURN_IF_ERROR(drain(0));
  return done;
}

}  // namespace

absl::StatusOr<SealedStream> SealedStream::Start(uint64_t secret, uint64_t stream,
                                                 const kernels::Problem& problem,
                                                 PreparedVariant* variant) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("unknown operation " + problem.op);
  SealedStream s(secret, stream, problem, variant);
  const kernels::Layout layout = op->layout(problem);
  for (size_t o = 0; o < layout.outputs.size(); ++o) {
    s.positions_.push_back(SealedPositions(secret, stream, static_cast<uint32_t>(o),
                                           layout.outputs[o].elements, kSealedPositions));
  }
  KBENCH_RETURN_IF_ERROR(variant->SetSealedPositions(s.positions_));
  return s;
}

measure::SampleFn SealedStream::SampleFn() {
  return [this]() -> absl::StatusOr<measure::Sample> {
    const SampleSeal seal = SealFor(secret_, stream_, calls_++);
    KBENCH_ASSIGN_OR_RETURN(SealedSample sealed, variant_->TakeSealedSample(seal));
    if (sealed.sample.discard) return sealed.sample;
    const int64_t index = reservoir_.offered();
    if (sealed.inputs_changed > 0 && first_changed_sample_ < 0) {
      first_changed_sample_ = index;
      changed_elements_ = sealed.inputs_changed;
    }
    reservoir_.Offer({index, seal, std::move(sealed.outputs), sealed.unwritten});
    return sealed.sample;
  };
}

absl::Status SealedStream::CheckInputsUnchanged(const std::string& where) const {
  if (first_changed_sample_ < 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "inputs: %s wrote its inputs: after timed sample %d, %d input elements no longer held the "
      "values generated for it; inputs are read-only (a kernel that changes them can carry "
      "state from one launch to the next)",
      where, first_changed_sample_, changed_elements_));
}

absl::Status SealedStream::Check(const std::vector<double>& per_launch, const std::string& where,
                                 v1::SealedChecks* out) const {
  KBENCH_RETURN_IF_ERROR(CheckInputsUnchanged(where));
  const auto start = std::chrono::steady_clock::now();
  KBENCH_ASSIGN_OR_RETURN(
      const std::vector<SampleCheck> done,
      CompareChosenSamples(*variant_, problem_, positions_, reservoir_.Checked()));
  std::vector<int64_t> checked_indices;
  for (const SampleCheck& c : done) {
    checked_indices.push_back(c.index);
    out->set_tolerance(c.correctness.tolerance());
    out->set_worst_relative_l2_error(
        std::max(out->worst_relative_l2_error(), c.correctness.relative_l2_error()));
    if (!c.correctness.passed()) {
      std::string detail = c.correctness.detail();
      if (c.unwritten > 0) {
        detail =
            absl::StrCat(c.unwritten, " of the ", c.correctness.elements_checked(),
                         " elements read back still held the sample's output pattern; ", detail);
      }
      return absl::FailedPreconditionError(
          absl::StrFormat("correctness: timed sample %d of %s does not match its reference "
                          "(inputs of its own, seed %d): %s",
                          c.index, where, c.correctness.input_seed(), detail));
    }
  }
  out->set_samples(out->samples() + static_cast<int64_t>(per_launch.size()));
  out->set_samples_checked(out->samples_checked() + static_cast<int64_t>(done.size()));
  int64_t positions = 0;
  for (const std::vector<int64_t>& p : positions_)
    positions = std::max<int64_t>(positions, p.size());
  out->set_positions(positions);
  out->set_inputs_unchanged(true);
  out->set_check_seconds(
      out->check_seconds() +
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());

  const CheckedTiming timing = JudgeCheckedTiming(per_launch, checked_indices);
  if (timing.judged && out->checked_median_seconds() == 0) {
    out->set_checked_median_seconds(timing.checked_median);
    out->set_unchecked_median_seconds(timing.unchecked_median);
    out->set_unchecked_p99_seconds(timing.unchecked_p99);
  }
  return CheckedTimingStatus(timing, where);
}

}  // namespace kbench::executor
