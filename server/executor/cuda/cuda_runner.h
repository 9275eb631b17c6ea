// The CUDA DeviceRunner: one device, its dedicated streams, and the instruments of the timing
// protocol (L2 flusher, blocking kernel, clock probe, NVML). Prepare() sets a problem up as a
// CudaPreparedVariant (prepared_variant.h). Not thread-safe: the executor runs one job at a time
// on one thread.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/contention.h"
#include "server/executor/cuda/blocking_kernel.h"
#include "server/executor/cuda/clock_probe.h"
#include "server/executor/cuda/l2_flusher.h"
#include "server/executor/cuda/measure_modes.h"
#include "server/executor/cuda/nvml.h"
#include "server/executor/cuda/nvml_conditions.h"
#include "server/executor/cuda/user_variant.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/clock_floor.h"

namespace kbench::executor::cuda {

struct CudaRunnerOptions {
  // Finds the launch function of (op, variant); kernels::cuda::FindCudaVariant when empty.
  // Tests substitute their own kernels (a faulting one, say) under a catalogue variant's name.
  std::function<const kernels::cuda::CudaVariant*(const std::string& op,
                                                  const std::string& variant)>
      find_variant;
  // Copy-bandwidth runs at start (median of these).
  int copy_bandwidth_runs = 9;
  // Samples whose probed SM clock is under this fraction of the maximum SM clock (or of the
  // warm-up's clock when the clocks are locked low: measure/clock_floor.h) are discarded; 75%
  // as nvbench's throttle threshold. Tests raise it to force discards.
  double clock_floor_fraction = 0.75;
  // How cold samples flush the L2 (l2_flusher.h).
  FlushKind flush = FlushKind::kWrite;
  // kbenchd's --idle-gate for this device (off by default).
  IdleGateOptions idle_gate;
};

class CudaRunner : public DeviceRunner {
 public:
  explicit CudaRunner(int ordinal, CudaRunnerOptions options = {});
  ~CudaRunner() override;
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;

  // Selects the device, creates the streams and instruments, opens NVML, measures the copy
  // bandwidth and fills info().
  absl::Status Initialize();

  const v1::DeviceInfo& info() const override { return info_; }
  v1::MeasureMode default_mode() const override { return v1::MEASURE_MODE_COLD; }
  absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(
      const kernels::Problem& problem, uint64_t seed, v1::MeasureMode mode,
      const BufferPlacement& placement) override;
  absl::StatusOr<std::unique_ptr<PreparedVariant>> PrepareUserVariant(
      const kernels::Problem& problem, const v1::UserKernel& kernel, uint64_t seed,
      v1::MeasureMode mode, const BufferPlacement& placement, const std::string& scratch_dir,
      const std::atomic<bool>* cancelled) override;
  // A job's user kernel compiled (or found compiled) and loaded for this device's architecture,
  // for the job's lifetime (EndJob unloads it); `*cache_hit` says whether the compile was cached.
  // Users' collective kernels (issue 30) load here too, then launch on every rank of the gang.
  absl::StatusOr<const LoadedUserModule*> LoadUserModule(const v1::UserKernel& kernel,
                                                         const std::string& scratch_dir,
                                                         const std::atomic<bool>* cancelled,
                                                         bool* cache_hit);
  double PeakFlops(kernels::DType dtype) const override;
  void ReadClocks(v1::ClockReading* reading) override;

  void BeginSampling() override;
  void EndSampling(v1::Environment* env) override;
  // Issue 29: NVML's energy counter (unsupported where the driver or GPU lacks it) and the
  // stamp's readings (none without NVML).
  EnergyCounter* energy_counter() override { return &conditions_; }
  ConditionsReader* conditions_reader() override {
    return nvml_.available() ? &conditions_ : nullptr;
  }

  bool NeedsRestart() const override { return needs_restart_; }

  // Before every job: whose compiles it keeps (the cache's per-owner share).
  void BeginJob(const std::string& owner) { user_modules_.BeginJob(owner); }
  // After every job, whatever its outcome: unloads the job's user modules (their __device__
  // data dies with them).
  void EndJob() { user_modules_.UnloadAll(); }

  // After a failed job: finds out whether the CUDA context survived. A sticky error (illegal
  // address, launch failure, ...) makes NeedsRestart() true and is said in the returned status.
  absl::Status CheckHealth(const absl::Status& failure);
  // A multi-GPU job this process drove (collective_job.h) may have left work running or a
  // context broken on another device of its gang: this process restarts before the next job,
  // as after a sticky error of its own.
  void RequireRestart() { needs_restart_ = true; }

  // For CudaPreparedVariant.
  int ordinal() const { return ordinal_; }
  cudaStream_t timed_stream() const { return timed_stream_; }
  cudaStream_t prep_stream() const { return prep_stream_; }
  const cudaDeviceProp& prop() const { return prop_; }
  // The runner's instruments around the timed stream (events are the caller's).
  TimedContext timed_context() const;
  // The cuBLAS handle bound to the timed stream, created on first use.
  absl::StatusOr<void*> Cublas();
  double default_sm_clock_mhz() const { return default_sm_clock_mhz_; }
  // A variant's warm-up ended with a sample whose probes saw `sm_clock_mhz`: with NVML's
  // slowdown reasons read now, it decides the clock floor at BeginSampling.
  void NoteWarmupClock(double sm_clock_mhz);

 protected:
  void FillDeviceEnvironment(v1::Environment* env) override;

 private:
  const int ordinal_;
  CudaRunnerOptions options_;
  v1::DeviceInfo info_;
  // Users' modules compiled and loaded in this process (issue 10).
  UserModuleCache user_modules_;
  cudaDeviceProp prop_{};
  cudaStream_t timed_stream_ = nullptr;
  cudaStream_t prep_stream_ = nullptr;
  L2Flusher flusher_;
  BlockingKernel blocker_;
  ClockProbe probe_;
  Nvml nvml_;
  void* cublas_ = nullptr;
  void* cublas_workspace_ = nullptr;
  double default_sm_clock_mhz_ = 0;
  double max_sm_clock_mhz_ = 0;
  // The current job's: the lowest warm-up clock and whether NVML saw a slowdown then (reset
  // when a job starts, in FillDeviceEnvironment).
  double warmup_clock_mhz_ = 0;
  bool warmup_slowdown_ = false;
  measure::ClockFloor clock_floor_;
  ViolationCounters violations_before_;
  // Other processes on the GPU around sampling, and the idle gate before it (issue 13).
  NvmlActivity activity_{&nvml_};
  NvmlConditions conditions_{&nvml_};
  ContentionWatch contention_{0};
  v1::IdleGate idle_gate_;
  bool needs_restart_ = false;
};

}  // namespace kbench::executor::cuda
