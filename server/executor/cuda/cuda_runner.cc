// The CUDA DeviceRunner: device bring-up, the instruments, Prepare, clocks and health.
#include "server/executor/cuda/cuda_runner.h"

#include <cublas_v2.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "server/executor/cuda/copy_bandwidth.h"
#include "server/executor/cuda/device_info.h"
#include "server/executor/cuda/prepared_variant.h"

namespace kbench::executor::cuda {

CudaRunner::CudaRunner(int ordinal, CudaRunnerOptions options)
    : ordinal_(ordinal), options_(std::move(options)) {}

CudaRunner::~CudaRunner() {
  if (cublas_ != nullptr) cublasDestroy(static_cast<cublasHandle_t>(cublas_));
  if (cublas_workspace_ != nullptr) cudaFree(cublas_workspace_);
  if (timed_stream_ != nullptr) cudaStreamDestroy(timed_stream_);
  if (prep_stream_ != nullptr) cudaStreamDestroy(prep_stream_);
}

absl::Status CudaRunner::Initialize() {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop_, ordinal_));
  KBENCH_ASSIGN_OR_RETURN(v1::DeviceInfo info, ReadDeviceInfo(ordinal_));
  info_ = std::move(info);
  // Non-blocking: never implicitly ordered with the legacy default stream, which a library
  // might use behind our back.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&timed_stream_, cudaStreamNonBlocking));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&prep_stream_, cudaStreamNonBlocking));
  if (absl::Status s = flusher_.Init(static_cast<size_t>(prop_.l2CacheSize), options_.flush);
      !s.ok())
    return s;
  KBENCH_RETURN_IF_ERROR(blocker_.Init());
  KBENCH_RETURN_IF_ERROR(probe_.Init());

  char pci[64] = {};
  if (cudaDeviceGetPCIBusId(pci, sizeof(pci), ordinal_) == cudaSuccess && nvml_.Open(pci)) {
    const std::string driver = nvml_.DriverVersion();
    if (!driver.empty())
      info_.set_driver_version(absl::StrCat(driver, " (", info_.driver_version(), ")"));
  } else {
    cudaGetLastError();
  }
  default_sm_clock_mhz_ = nvml_.DefaultSmClockMhz();
  if (default_sm_clock_mhz_ <= 0) default_sm_clock_mhz_ = info_.sm_clock_mhz();
  // The floor's basis (issue 15, item 1): the default applications clock is the base clock on
  // some parts, where a 75% floor never fires; the maximum is what nvbench compares against.
  // info_.sm_clock_mhz() is cudaDevAttrClockRate, the maximum boost clock.
  max_sm_clock_mhz_ = nvml_.MaxSmClockMhz();
  if (max_sm_clock_mhz_ <= 0) max_sm_clock_mhz_ = info_.sm_clock_mhz();
  clock_floor_ =
      measure::ChooseClockFloor(options_.clock_floor_fraction, max_sm_clock_mhz_, 0, std::nullopt);

  size_t free_bytes = 0, total_bytes = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
  KBENCH_ASSIGN_OR_RETURN(
      CopyBandwidth bw,
      MeasureCopyBandwidth(timed_stream_, &blocker_, DefaultCopyBandwidthBytes(free_bytes),
                           options_.copy_bandwidth_runs));
  info_.set_copy_bandwidth_bytes_per_second(bw.bytes_per_second);
  // The same copy with both buffers resident in the L2: the floor of hot and graph samples whose
  // problem fits in the L2 (issue 10, item 5).
  KBENCH_ASSIGN_OR_RETURN(
      CopyBandwidth l2,
      MeasureCopyBandwidth(timed_stream_, &blocker_, L2ResidentCopyBytes(prop_.l2CacheSize),
                           options_.copy_bandwidth_runs));
  info_.set_l2_bandwidth_bytes_per_second(l2.bytes_per_second);
  info_.set_state(v1::DEVICE_STATE_READY);
  return absl::OkStatus();
}

TimedContext CudaRunner::timed_context() const {
  TimedContext c;
  c.stream = timed_stream_;
  c.flusher = const_cast<L2Flusher*>(&flusher_);
  c.blocker = const_cast<BlockingKernel*>(&blocker_);
  c.probe = const_cast<ClockProbe*>(&probe_);
  c.min_sm_clock_mhz = clock_floor_.mhz;
  return c;
}

absl::StatusOr<void*> CudaRunner::Cublas() {
  if (cublas_ != nullptr) return cublas_;
  cublasHandle_t handle = nullptr;
  if (const cublasStatus_t s = cublasCreate(&handle); s != CUBLAS_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("cublasCreate failed: ", cublasGetStatusName(s)));
  }
  if (const cublasStatus_t s = cublasSetStream(handle, timed_stream_); s != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    return absl::InternalError(absl::StrCat("cublasSetStream failed: ", cublasGetStatusName(s)));
  }
  // A workspace of its own, so cuBLAS never allocates inside a CUDA graph capture (graph mode);
  // 32 MiB is what cuBLAS recommends for Hopper.
  constexpr size_t kCublasWorkspaceBytes = 32u << 20;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&cublas_workspace_, kCublasWorkspaceBytes));
  if (const cublasStatus_t s = cublasSetWorkspace(handle, cublas_workspace_, kCublasWorkspaceBytes);
      s != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    return absl::InternalError(absl::StrCat("cublasSetWorkspace failed: ", cublasGetStatusName(s)));
  }
  cublas_ = handle;
  return cublas_;
}

absl::StatusOr<std::unique_ptr<PreparedVariant>> CudaRunner::Prepare(
    const kernels::Problem& problem, uint64_t seed, v1::MeasureMode mode,
    const BufferPlacement& placement) {
  const kernels::cuda::CudaVariant* variant =
      options_.find_variant ? options_.find_variant(problem.op, problem.variant)
                            : kernels::cuda::FindCudaVariant(problem.op, problem.variant);
  if (variant == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("variants: ", problem.op, "/", problem.variant,
                     " has no CUDA implementation; ", info_.id(), " runs CUDA variants only"));
  }
  if (mode != v1::MEASURE_MODE_COLD && mode != v1::MEASURE_MODE_HOT &&
      mode != v1::MEASURE_MODE_GRAPH) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: ", v1::MeasureMode_Name(mode), " is not a measure mode"));
  }
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<CudaPreparedVariant> pv,
      CudaPreparedVariant::Create(this, problem, *variant, seed, mode, placement));
  return std::unique_ptr<PreparedVariant>(std::move(pv));
}

absl::StatusOr<std::unique_ptr<PreparedVariant>> CudaRunner::PrepareUserVariant(
    const kernels::Problem& problem, const v1::UserKernel& kernel, uint64_t seed,
    v1::MeasureMode mode, const BufferPlacement& placement, const std::string& scratch_dir,
    const std::atomic<bool>* cancelled) {
  if (mode != v1::MEASURE_MODE_COLD && mode != v1::MEASURE_MODE_HOT &&
      mode != v1::MEASURE_MODE_GRAPH) {
    return absl::InvalidArgumentError(
        absl::StrCat("mode: ", v1::MeasureMode_Name(mode), " is not a measure mode"));
  }
  bool cache_hit = false;
  KBENCH_ASSIGN_OR_RETURN(const LoadedUserModule* module,
                          LoadUserModule(kernel, scratch_dir, cancelled, &cache_hit));
  KBENCH_ASSIGN_OR_RETURN(VariantLauncher launcher,
                          MakeUserLauncher(*module, kernel, problem, ordinal_, cache_hit));
  KBENCH_ASSIGN_OR_RETURN(
      std::unique_ptr<CudaPreparedVariant> pv,
      CudaPreparedVariant::Create(this, problem, std::move(launcher), seed, mode, placement));
  return std::unique_ptr<PreparedVariant>(std::move(pv));
}

absl::StatusOr<const LoadedUserModule*> CudaRunner::LoadUserModule(
    const v1::UserKernel& kernel, const std::string& scratch_dir,
    const std::atomic<bool>* cancelled, bool* cache_hit) {
  // kbenchd fills the arch in from this device at submit; an old spec may lack it.
  KBENCH_ASSIGN_OR_RETURN(const kernels::SmArch arch,
                          kernel.arch().empty()
                              ? kernels::SmArchForComputeCapability(info_.compute_capability())
                              : kernels::ParseSmArch(kernel.arch()));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal_));
  return user_modules_.Get(kernel, arch, scratch_dir, cancelled, cache_hit);
}

double CudaRunner::PeakFlops(kernels::DType dtype) const {
  switch (dtype) {
    case kernels::DType::kF32:
      return info_.peak_flops_f32();
    case kernels::DType::kTF32:
      return info_.peak_flops_tf32();
    case kernels::DType::kBF16:
      return info_.peak_flops_bf16();
    case kernels::DType::kF16:
      return info_.peak_flops_f16();
  }
  return 0;
}

void CudaRunner::ReadClocks(v1::ClockReading* reading) {
  if (!nvml_.available()) return;
  const NvmlReading r = nvml_.Read();
  reading->set_sm_clock_mhz(r.sm_clock_mhz);
  reading->set_memory_clock_mhz(r.memory_clock_mhz);
  reading->set_temperature_c(r.temperature_c);
  reading->set_power_watts(r.power_watts);
  reading->set_throttle_reasons(r.throttle_reasons);
  for (const std::string& name : r.throttle_reason_names) reading->add_throttle_reason_names(name);
}

void CudaRunner::FillDeviceEnvironment(v1::Environment* env) {
  env->set_default_sm_clock_mhz(default_sm_clock_mhz_);
  FillNvmlConfiguration(nvml_, env);
  env->set_cuda_toolkit_version(
      absl::StrCat(CUDART_VERSION / 1000, ".", (CUDART_VERSION % 1000) / 10));
  warmup_clock_mhz_ = 0;
  warmup_slowdown_ = false;
}

void CudaRunner::NoteWarmupClock(double sm_clock_mhz) {
  if (sm_clock_mhz <= 0) return;
  if (warmup_clock_mhz_ <= 0 || sm_clock_mhz < warmup_clock_mhz_) warmup_clock_mhz_ = sm_clock_mhz;
  if (nvml_.available()) warmup_slowdown_ |= nvml_.Read().throttle_reasons != 0;
}

void CudaRunner::BeginSampling() {
  // The gate first: the clock floor and the counters describe the sampling that follows it.
  const GateClock clock{[] { return absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()); },
                        [](double s) { absl::SleepFor(absl::Seconds(s)); }};
  idle_gate_ = RunIdleGate(activity_, options_.idle_gate, getpid(), clock);
  contention_ = ContentionWatch(getpid());
  contention_.Observe(activity_);
  const std::optional<bool> slowdown =
      nvml_.available() ? std::optional<bool>(warmup_slowdown_) : std::nullopt;
  clock_floor_ = measure::ChooseClockFloor(options_.clock_floor_fraction, max_sm_clock_mhz_,
                                           warmup_clock_mhz_, slowdown);
  violations_before_ = nvml_.ReadViolations();
}

void CudaRunner::EndSampling(v1::Environment* env) {
  contention_.Observe(activity_);
  contention_.Fill(env->mutable_contention());
  *env->mutable_idle_gate() = idle_gate_;
  env->set_clock_floor_mhz(clock_floor_.mhz);
  env->set_clock_floor_reference_mhz(clock_floor_.reference_mhz);
  switch (clock_floor_.basis) {
    case measure::ClockFloorBasis::kMaxSmClock:
      env->set_clock_floor_basis(v1::HARNESS_CLOCK_FLOOR_BASIS_MAX_SM_CLOCK);
      break;
    case measure::ClockFloorBasis::kWarmupProbe:
      env->set_clock_floor_basis(v1::HARNESS_CLOCK_FLOOR_BASIS_WARMUP_PROBE);
      break;
    case measure::ClockFloorBasis::kNone:
      env->set_clock_floor_basis(v1::HARNESS_CLOCK_FLOOR_BASIS_NONE);
      break;
  }
  const ViolationSeconds v = ViolationsBetween(violations_before_, nvml_.ReadViolations());
  env->set_violation_counters_read(v.read);
  env->set_power_violation_seconds(v.power);
  env->set_thermal_violation_seconds(v.thermal);
  env->set_board_limit_violation_seconds(v.board_limit);
  env->set_reliability_violation_seconds(v.reliability);
}

absl::Status CudaRunner::CheckHealth(const absl::Status& failure) {
  // A failed allocation or a bad launch configuration is returned once and cleared here; an
  // error from the device (illegal address, trap, launch failure) is sticky: every later call
  // returns it, so a synchronisation tells the two apart.
  cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync == cudaSuccess) return failure;
  needs_restart_ = true;
  return absl::Status(
      failure.ok() ? absl::StatusCode::kInternal : failure.code(),
      absl::StrCat(failure.message(), "; the CUDA context of ", info_.id(), " is unusable after ",
                   cudaGetErrorName(sync), ": its executor restarts before the next job"));
}

}  // namespace kbench::executor::cuda
