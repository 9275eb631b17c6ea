// What a CUDA device is: the static DeviceInfo fields read from the runtime, and peak FLOP
// rates from the SM count, the SM clock and the architecture's per-SM throughput.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/dtype.h"

namespace kbench::executor::cuda {

// Dense FLOP per SM per clock of one architecture; 0 where unknown or unsupported.
struct PerSmRates {
  double f32 = 0;   // CUDA cores, FMA = 2 FLOP
  double tf32 = 0;  // tensor cores, dense
  double bf16 = 0;  // tensor cores, dense, FP32 accumulate
  double f16 = 0;   // tensor cores, dense, FP32 accumulate
};

PerSmRates PerSmRatesFor(int major, int minor);

// Peak FLOP/s of `dtype` for a device with `sm_count` SMs at `sm_clock_mhz`.
double PeakFlops(const PerSmRates& rates, int sm_count, double sm_clock_mhz, kernels::DType dtype);

// Fills id, kind, name, uuid, compute capability, SM count, memory, L2, runtime and CUDA driver
// versions, SM and memory clocks (maximum), and the peak rates at the maximum SM clock.
// Copy bandwidth and NVML's driver version are the runner's to add.
absl::StatusOr<v1::DeviceInfo> ReadDeviceInfo(int ordinal);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it.
std::string FormatUuid(const unsigned char bytes[16]);

}  // namespace kbench::executor::cuda
