// The interface between the device-independent benchmark pipeline (benchmark_job.cc) and a
// device: the cpu runner times host code with host clocks, the CUDA runner (cuda/) times
// kernels with device events. Everything a device must do for one problem is here.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"
#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/conditions/energy.h"
#include "server/executor/measure/sampler.h"
#include "server/executor/sealed_samples.h"

namespace kbench::executor {

// The outputs of one checked run, converted to float64.
struct CheckedOutput {
  kernels::HostTensors outputs;
  // Elements of each output still holding the poison pattern (never written).
  int64_t unwritten = 0;
};

// One timed sample whose outputs were read back.
struct TimedCheck {
  measure::Sample sample;
  CheckedOutput output;
};

// What a sealed sample (sealed_samples.h) leaves for its check: per output, its values at the
// sealed positions in float64; how many of them still hold the sample's output pattern (never
// written); and how many input elements no longer held their generated values afterwards.
struct SealedSample {
  measure::Sample sample;
  kernels::HostTensors outputs;
  int64_t unwritten = 0;
  int64_t inputs_changed = 0;
};

// Where a prepared problem's tensors sit (JobSpec.placements): they are allocated together,
// inputs then outputs, each on a 256-byte boundary, and `tensor_gap_bytes` more left free
// between consecutive tensors. Each preparation is a fresh allocation, so its absolute address
// differs too.
struct BufferPlacement {
  int64_t tensor_gap_bytes = 0;
};

// One problem set up on a device: inputs generated from the seed, outputs allocated.
// Not thread-safe; used by one job at a time.
class PreparedVariant {
 public:
  virtual ~PreparedVariant() = default;
  // Refills the inputs of every buffer set from `seed`, as Prepare filled them from its seed,
  // and waits until they are in place. The pipeline checks on inputs from seeds it draws for
  // the job (issue 10, item 5), then puts the timed inputs back.
  virtual absl::Status RegenerateInputs(uint64_t seed) = 0;
  // The inputs as the device holds them (rounded to the dtype), in float64.
  virtual absl::StatusOr<kernels::HostTensors> Inputs() = 0;
  // Poisons the outputs, runs the variant once, waits, and reads the outputs back.
  virtual absl::StatusOr<CheckedOutput> RunChecked() = 0;
  // Runs until caches, clocks and lazy initialisation have settled.
  virtual absl::Status Warmup() = 0;
  // One timed sample in the job's measure mode.
  virtual absl::StatusOr<measure::Sample> TakeSample() = 0;
  // After Warmup: poisons the outputs of the buffer set the job's mode writes last, takes one
  // timed sample exactly as TakeSample does, and reads those outputs back. The pipeline
  // compares them with the checked run's reference, so that what was timed (the cold launch
  // behind the blocker, the hot batch, the captured graph, the rotated buffer sets) is what was
  // checked (issue 15, item 2; users' kernels rely on it to catch a kernel that computes only
  // when checked).
  virtual absl::StatusOr<TimedCheck> TakeCheckedSample() = 0;
  // Sealed sampling (issue 23). The positions of each output that every sealed sample reads
  // back (sealed_samples.h, SealedPositions), set once before sampling.
  virtual absl::Status SetSealedPositions(const std::vector<std::vector<int64_t>>& positions) = 0;
  // One timed sample in the job's mode, exactly as TakeSample, with the same work around it
  // for every sample: before it (outside the timed region, before a cold flush) every buffer
  // set's inputs are generated from `seal` and its outputs filled with `seal`'s pattern; after
  // it, the outputs of the set the mode writes last are read at the sealed positions and every
  // set's inputs are compared with what `seal` generated. Nothing here tells a kernel whether
  // its sample will be checked: that is chosen after sampling.
  virtual absl::StatusOr<SealedSample> TakeSealedSample(const SampleSeal& seal) = 0;
  // The inputs of the buffer set whose outputs a sealed sample read, regenerated from `seal`
  // and read back (rounded to the dtype): what the reference of that sample needs; for a
  // pointwise operation (kernels::Operation::pointwise) only their values at the sealed
  // positions of output 0, in that order. Returns a function that converts them to float64,
  // which may run on another thread (the conversion, not the copy, is the costly part).
  virtual absl::StatusOr<std::function<kernels::HostTensors()>> SealedInputs(
      const SampleSeal& seal) = 0;
  // Facts of the measurement only this device knows (graph rotation bytes, say).
  virtual void DescribeMeasurement(v1::VariantResult* out) const { (void)out; }
  // One untimed run, waited for (profiling: CUPTI records it).
  virtual absl::Status RunOnce() = 0;
  // The energy phase (issue 29): `launches` untimed launches back to back on the same buffers
  // as the samples, waited for at the end. A device whose launches can be queued overrides it
  // so that no wait sits between them.
  virtual absl::Status LaunchBatch(int64_t launches) {
    for (int64_t i = 0; i < launches; ++i) {
      if (absl::Status s = RunOnce(); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

class DeviceRunner {
 public:
  virtual ~DeviceRunner() = default;
  // What the device is; copy bandwidth and peak rates filled in.
  virtual const v1::DeviceInfo& info() const = 0;
  // The measure mode used when the job leaves it unspecified.
  virtual v1::MeasureMode default_mode() const = 0;
  virtual absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(
      const kernels::Problem& problem, uint64_t seed, v1::MeasureMode mode,
      const BufferPlacement& placement) = 0;
  // A user's own kernel (issue 10) as the variant: compiled or loaded for this device (compiles
  // run in a child process using `scratch_dir`, stopped when `*cancelled`), then set up and
  // launched with the operation's ABI exactly as Prepare's variants are, so that it is checked
  // and timed by the same code. Devices that cannot run user kernels say so.
  virtual absl::StatusOr<std::unique_ptr<PreparedVariant>> PrepareUserVariant(
      const kernels::Problem& problem, const v1::UserKernel& kernel, uint64_t seed,
      v1::MeasureMode mode, const BufferPlacement& placement, const std::string& scratch_dir,
      const std::atomic<bool>* cancelled) {
    (void)problem, (void)kernel, (void)seed, (void)mode, (void)placement, (void)scratch_dir,
        (void)cancelled;
    return absl::FailedPreconditionError(
        absl::StrCat("user_kernels: ", info().id(), " cannot run user kernels (CUDA devices do)"));
  }
  // Peak FLOP/s for the dtype (0 when unknown).
  virtual double PeakFlops(kernels::DType dtype) const = 0;
  // Environment fields: clocks, temperature, throttling (may leave them empty).
  virtual void ReadClocks(v1::ClockReading* reading) { (void)reading; }
  // The job's environment: what every device has (from info() and the host's name), then
  // FillDeviceEnvironment for what only this kind of device knows.
  void FillEnvironment(v1::Environment* env);
  // Called once all variants are warmed up, just before sampling: a device fixes its clock
  // floor and snapshots its throttle counters here.
  virtual void BeginSampling() {}
  // Called after sampling, whether it succeeded or not: the clock floor used and the throttling
  // seen since BeginSampling go into `env`.
  virtual void EndSampling(v1::Environment* env) { (void)env; }
  // Issue 29: the device's energy counter and its conditions (clocks, thermals, other
  // processes) for the clean stamp and the thermal gate; null where the device has none (the
  // cpu device, a GPU without NVML): energy is then "unsupported on <device>", never a zero.
  virtual EnergyCounter* energy_counter() { return nullptr; }
  virtual ConditionsReader* conditions_reader() { return nullptr; }
  // True after an error that leaves the device unusable in this process (sticky CUDA error).
  virtual bool NeedsRestart() const { return false; }

 protected:
  virtual void FillDeviceEnvironment(v1::Environment* env) { (void)env; }
};

}  // namespace kbench::executor
