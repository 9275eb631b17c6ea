// One problem set up on a CUDA device: inputs generated on the device from the seed, outputs
// and workspace allocated (in one slab), optionally several buffer sets that graph samples
// rotate through, and the per-mode batch chosen at warm-up.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/operation.h"
#include "server/executor/cuda/measure_modes.h"
#include "server/executor/cuda/tensor_init.h"
#include "server/executor/device_runner.h"

namespace kbench::executor::cuda {

class CudaRunner;

// How a prepared problem launches its variant: a catalogue variant's launch function, or a user
// kernel's (user_variant.h).
struct VariantLauncher {
  std::function<absl::Status(const kernels::Problem&, const kernels::cuda::LaunchArgs&)> launch;
  bool needs_cublas = false;
  // Adds what only this launcher knows to the variant's result (a user module's record).
  std::function<void(v1::VariantResult*)> describe;
};

class CudaPreparedVariant : public PreparedVariant {
 public:
  // Allocates and fills the buffers; RESOURCE_EXHAUSTED naming the bytes when they do not fit.
  static absl::StatusOr<std::unique_ptr<CudaPreparedVariant>> Create(
      CudaRunner* runner, const kernels::Problem& problem,
      const kernels::cuda::CudaVariant& variant, uint64_t seed, v1::MeasureMode mode,
      const BufferPlacement& placement);
  static absl::StatusOr<std::unique_ptr<CudaPreparedVariant>> Create(
      CudaRunner* runner, const kernels::Problem& problem, VariantLauncher launcher, uint64_t seed,
      v1::MeasureMode mode, const BufferPlacement& placement);
  ~CudaPreparedVariant() override;

  // Refills every buffer set's inputs on the prep stream once the timed stream is idle.
  absl::Status RegenerateInputs(uint64_t seed) override;
  absl::StatusOr<kernels::HostTensors> Inputs() override;
  absl::StatusOr<CheckedOutput> RunChecked() override;
  absl::Status Warmup() override;
  absl::StatusOr<measure::Sample> TakeSample() override;
  // Poisons the last buffer set's outputs (the one a graph rotation writes last; the only one
  // in cold and hot mode), takes a sample, and reads that set back.
  absl::StatusOr<TimedCheck> TakeCheckedSample() override;
  absl::Status RunOnce() override;
  absl::Status LaunchBatch(int64_t launches) override;
  absl::Status SetSealedPositions(const std::vector<std::vector<int64_t>>& positions) override;
  absl::StatusOr<SealedSample> TakeSealedSample(const SampleSeal& seal) override;
  absl::StatusOr<std::function<kernels::HostTensors()>> SealedInputs(
      const SampleSeal& seal) override;
  // Graph mode: the rotation's bytes and their ratio to the L2.
  void DescribeMeasurement(v1::VariantResult* out) const override;

  // Buffer sets that graph samples rotate through (1 in other modes).
  int64_t buffer_sets() const { return static_cast<int64_t>(args_.size()); }
  // Launches per sample, chosen at warm-up (1 for cold).
  int64_t batch() const { return batch_; }
  // Device time of one launch estimated at warm-up, seconds.
  double warmup_launch_seconds() const { return launch_seconds_; }

  // Hot and graph samples batch enough launches to last this long on the device.
  static constexpr double kBatchTargetSeconds = 2e-3;
  // Bounds on the batch: the launch queue and graph instantiation time grow with it.
  static constexpr int64_t kMaxHotBatch = 100000;
  static constexpr int64_t kMaxGraphLaunches = 4096;
  // Bound on rotated buffer sets: a tiny problem's sets cannot outgrow the L2 within it.
  static constexpr int64_t kMaxBufferSets = 1024;

 private:
  CudaPreparedVariant(CudaRunner* runner, const kernels::Problem& problem, VariantLauncher launcher,
                      v1::MeasureMode mode);
  absl::Status Launch(int64_t i);
  // Fills buffer set `set`'s inputs from `seed` on `stream` (not waited for).
  absl::Status FillInputs(size_t set, uint64_t seed, cudaStream_t stream);
  absl::Status PoisonOutputs(size_t set, cudaStream_t stream);
  // Input `t` or output `o` across every buffer set.
  TensorSets InputSets(size_t t) const;
  TensorSets OutputSets(size_t o) const;
  // The buffer set whose outputs the mode writes last: graph mode's last launch's.
  size_t LastWrittenSet() const;
  // Every buffer set's inputs from `seal` (before a sample, and again to check it).
  absl::Status FillSealedInputs(const SampleSeal& seal, cudaStream_t stream);
  // Sealed sampling's work around a sample: the same for every sample.
  absl::Status SealBefore(const SampleSeal& seal, cudaStream_t stream);
  absl::Status ReadSealedAfter(const SampleSeal& seal, SealedSample* out);
  // Copies buffer set `set`'s inputs back, in float64.
  absl::StatusOr<kernels::HostTensors> ReadInputs(size_t set);
  // Waits for `stream`, then copies buffer set `set`'s outputs back, counting poison.
  absl::StatusOr<CheckedOutput> ReadOutputs(size_t set, cudaStream_t stream);
  // Prefixes "op/variant: what: " to a failure, so the job's error says where it happened.
  absl::Status Where(const absl::Status& s, const char* what) const;

  CudaRunner* runner_;
  kernels::Problem problem_;
  VariantLauncher launcher_;
  v1::MeasureMode mode_;
  std::string name_;
  kernels::Layout layout_;
  // Bytes of one buffer set (inputs and outputs, aligned).
  int64_t set_bytes_ = 0;
  void* slab_ = nullptr;
  int64_t slab_bytes_ = 0;
  // Sealed sampling's device memory: per output its positions (int64) and their read-back
  // values (raw), then two counters (unwritten positions, changed inputs).
  void* sealed_ = nullptr;
  std::vector<int64_t> sealed_counts_;
  std::vector<size_t> positions_offsets_, gathered_offsets_;
  size_t counters_offset_ = 0;
  // A pointwise operation's checks read its inputs back at the positions of output 0 only:
  // one region per input.
  std::vector<size_t> inputs_gathered_offsets_;
  size_t sealed_bytes_ = 0;
  // One LaunchArgs per buffer set.
  std::vector<kernels::cuda::LaunchArgs> args_;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
  std::unique_ptr<GraphBatch> graph_;
  int64_t batch_ = 1;
  double launch_seconds_ = 0;
};

// How many buffer sets of `set_bytes` keep the working set of a rotation out of an L2 of
// `l2_bytes`: between two uses of one set, the others must move at least twice the L2.
int64_t BufferSetsForRotation(int64_t set_bytes, int64_t l2_bytes);

}  // namespace kbench::executor::cuda
