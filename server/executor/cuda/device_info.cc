// Static facts of a CUDA device and its peak arithmetic rates.
#include "server/executor/cuda/device_info.h"

#include <cuda_runtime.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::executor::cuda {

PerSmRates PerSmRatesFor(int major, int minor) {
  // Dense per-SM, per-clock FLOP from NVIDIA's architecture whitepapers:
  // - Hopper (9.0): "NVIDIA H100 Tensor Core GPU Architecture" (2022), the SM section and the
  //   A100/H100 comparison table: 128 FP32 cores per SM (256 FLOP/clk), and per SM per clock
  //   1024 dense TF32 FMA and 2048 dense FP16/BF16 FMA (2048 and 4096 FLOP). Check: 132 SMs x
  //   1830 MHz x 4096 = 989.4 TFLOP/s, the datasheet's dense FP16 figure for the H100 SXM
  //   (the datasheet takes 1830 MHz; we take the device's maximum SM clock, 1980 MHz there, so
  //   our tensor peaks are 8% above the datasheet's).
  // - Ampere GA100 (8.0): "NVIDIA A100 Tensor Core GPU Architecture" (2020): 64 FP32 cores
  //   per SM (128 FLOP/clk); 512 TF32 and 1024 FP16/BF16 dense FMA per SM per clock (108 SMs x
  //   1410 MHz x 2048 = 312 TFLOP/s FP16).
  // - Volta (7.0): "NVIDIA Tesla V100 GPU Architecture" (2017): 64 FP32 cores and 8 tensor
  //   cores of 64 FP16 FMA per clock per SM; no TF32 or BF16.
  // Other architectures: FP32 only where the core count per SM is documented; tensor rates
  // unknown (0) rather than guessed, since consumer parts halve FP32-accumulate throughput.
  PerSmRates r;
  if (major == 9 && minor == 0) {
    r = {256, 2048, 4096, 4096};
  } else if (major == 8 && minor == 0) {
    r = {128, 1024, 2048, 2048};
  } else if (major == 7 && minor == 0) {
    r = {128, 0, 0, 1024};
  } else if (major >= 8) {
    // Ampere 8.6/8.7, Ada 8.9, Blackwell 10.x/12.x: 128 FP32 cores per SM.
    r.f32 = 256;
  }
  return r;
}

double PeakFlops(const PerSmRates& rates, int sm_count, double sm_clock_mhz, kernels::DType dtype) {
  double per_sm = 0;
  switch (dtype) {
    case kernels::DType::kF32:
      per_sm = rates.f32;
      break;
    case kernels::DType::kTF32:
      per_sm = rates.tf32;
      break;
    case kernels::DType::kBF16:
      per_sm = rates.bf16;
      break;
    case kernels::DType::kF16:
      per_sm = rates.f16;
      break;
  }
  return per_sm * static_cast<double>(sm_count) * sm_clock_mhz * 1e6;
}

std::string FormatUuid(const unsigned char b[16]) {
  return absl::StrFormat("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
                         b[12], b[13], b[14], b[15]);
}

namespace {
std::string VersionString(int v) { return absl::StrCat(v / 1000, ".", (v % 1000) / 10); }
}  // namespace

absl::StatusOr<v1::DeviceInfo> ReadDeviceInfo(int ordinal) {
  cudaDeviceProp prop{};
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal));
  int clock_khz = 0, memory_clock_khz = 0, driver = 0, runtime = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal));
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaDriverGetVersion(&driver));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaRuntimeGetVersion(&runtime));

  v1::DeviceInfo d;
  d.set_id(absl::StrCat("cuda:", ordinal));
  d.set_kind(v1::DEVICE_KIND_CUDA);
  d.set_name(prop.name);
  d.set_uuid(FormatUuid(reinterpret_cast<const unsigned char*>(prop.uuid.bytes)));
  d.set_compute_capability(absl::StrCat(prop.major, ".", prop.minor));
  d.set_sm_count(prop.multiProcessorCount);
  d.set_memory_bytes(static_cast<int64_t>(prop.totalGlobalMem));
  d.set_l2_bytes(prop.l2CacheSize);
  d.set_driver_version(absl::StrCat("CUDA ", VersionString(driver)));
  d.set_runtime_version(VersionString(runtime));
  d.set_sm_clock_mhz(clock_khz / 1000);
  d.set_memory_clock_mhz(memory_clock_khz / 1000);
  const PerSmRates rates = PerSmRatesFor(prop.major, prop.minor);
  const double mhz = clock_khz / 1000.0;
  d.set_peak_flops_f32(PeakFlops(rates, prop.multiProcessorCount, mhz, kernels::DType::kF32));
  d.set_peak_flops_tf32(PeakFlops(rates, prop.multiProcessorCount, mhz, kernels::DType::kTF32));
  d.set_peak_flops_bf16(PeakFlops(rates, prop.multiProcessorCount, mhz, kernels::DType::kBF16));
  d.set_peak_flops_f16(PeakFlops(rates, prop.multiProcessorCount, mhz, kernels::DType::kF16));
  d.set_state(v1::DEVICE_STATE_READY);
  return d;
}

}  // namespace kbench::executor::cuda
