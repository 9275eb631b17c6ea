// Where the GPU gauges come from: a reading of one GPU's utilization, memory, clocks,
// temperature, power and throttle reasons. NVML (loaded at run time) in kbenchd, a fake in tests.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "server/common/nvml_api.h"

namespace kbench::metrics {

// One reading. A field the driver could not give (not supported on this GPU, transient error)
// is empty, and its series is left out of the scrape rather than reported as zero.
struct GpuSample {
  std::optional<double> gpu_utilization_percent;
  std::optional<double> memory_copy_utilization_percent;
  std::optional<uint64_t> memory_total_bytes;
  std::optional<uint64_t> memory_used_bytes;
  std::optional<uint64_t> memory_free_bytes;
  std::optional<double> sm_clock_mhz;
  std::optional<double> memory_clock_mhz;
  std::optional<double> temperature_celsius;
  std::optional<double> power_watts;
  std::optional<uint64_t> energy_millijoules;  // since the driver was loaded
  // NVML's clocks-event (throttle) reason bit mask, nvmlClocksEventReason* / kThrottle* below.
  std::optional<uint64_t> throttle_reasons;
};

// NVML's clocks-event reason bits (server/common/nvml_api.h).
using nvml::kThrottleApplicationsClocksSetting;
using nvml::kThrottleDisplayClockSetting;
using nvml::kThrottleGpuIdle;
using nvml::kThrottleHwPowerBrakeSlowdown;
using nvml::kThrottleHwSlowdown;
using nvml::kThrottleHwThermalSlowdown;
using nvml::kThrottleSwPowerCap;
using nvml::kThrottleSwThermalSlowdown;
using nvml::kThrottleSyncBoost;

// What a GPU is, as the driver names it.
struct GpuIdentity {
  int index = -1;    // the driver's (NVML's) index, dcgm-exporter's `gpu` label
  std::string uuid;  // "GPU-..."
  std::string name;  // e.g. "NVIDIA H100 80GB HBM3"
};

// Thread-safe: Read may run on the scrape thread while Find runs on another.
class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // Resolves a GPU by UUID ("GPU-..." or the bare hex form CUDA prints); an empty UUID falls
  // back to the driver's index `ordinal`. NOT_FOUND when no such GPU.
  virtual absl::StatusOr<GpuIdentity> Find(const std::string& uuid, int ordinal) = 0;
  // Reads the GPU `index` returned by Find.
  virtual GpuSample Read(int index) const = 0;
};

// Loads NVML from `library` with dlopen and initialises it. FAILED_PRECONDITION (with dlerror's
// or NVML's reason) on a host without the NVIDIA driver: GPU gauges are then absent.
absl::StatusOr<std::unique_ptr<GpuSource>> LoadNvml(
    const std::string& library = "libnvidia-ml.so.1");

}  // namespace kbench::metrics
