// NVML (server/common/nvml_api.h, loaded at run time): clocks, temperature, power and throttle
// reasons of one GPU. Without libnvidia-ml.so.1 (or on any NVML error) readings are simply left
// empty.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "server/common/nvml_api.h"
#include "server/executor/contention.h"

namespace kbench::executor::cuda {

// One NVML reading; a field NVML could not give stays 0 / empty.
struct NvmlReading {
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int temperature_c = 0;
  double power_watts = 0;
  // Throttle (clocks event) reasons, NVML's bit mask, with the benign bits (idle, application
  // clock setting, display clock) removed: what is left slowed the GPU down.
  uint64_t throttle_reasons = 0;
  std::vector<std::string> throttle_reason_names;
};

// NVML's cumulative violation counters (nanoseconds the clocks were held down, by cause).
struct ViolationCounters {
  bool read = false;
  uint64_t power_ns = 0, thermal_ns = 0, board_limit_ns = 0, reliability_ns = 0;
};

// Seconds of each cause between two readings; all zero unless both were read. A counter that
// went backwards (a driver reload between the readings) counts as zero.
struct ViolationSeconds {
  bool read = false;
  double power = 0, thermal = 0, board_limit = 0, reliability = 0;
};
ViolationSeconds ViolationsBetween(const ViolationCounters& before, const ViolationCounters& after);

// Not thread-safe; one per executor process.
class Nvml {
 public:
  Nvml() = default;
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // Loads the library and finds the GPU with this PCI bus id ("0000:1b:00.0"). Returns false
  // (and stays unavailable) when the library or the device is absent; never an error.
  bool Open(const std::string& pci_bus_id);
  bool available() const { return device_ != nullptr; }

  NvmlReading Read() const;
  // The violation counters now; read = false without NVML or the entry point (then a
  // throttle-reason reading is all there is).
  ViolationCounters ReadViolations() const;
  // The SM clock the GPU runs at by default (default applications clock), MHz; 0 if unknown.
  int DefaultSmClockMhz() const;
  // The highest SM clock, MHz; 0 if unknown.
  int MaxSmClockMhz() const;
  // The kernel driver's version, e.g. "580.65.06"; empty if unknown.
  std::string DriverVersion() const;
  // Processes with a compute context on the GPU (this one included); nullopt without NVML or
  // the entry point.
  std::optional<std::vector<SeenProcess>> ComputeProcesses() const;

  // The entry points and the device handle, for readers of other facts (nvml_conditions.h);
  // null while unavailable.
  const nvml::Api* api() const { return api_; }
  nvml::Device device() const { return device_; }

  // The bits that mean the clocks were held down, not merely idle or set so.
  static constexpr uint64_t kSlowdownMask = 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80;

 private:
  // The process-wide NVML entry points (server/common/nvml_api.h); null when NVML is absent.
  const nvml::Api* api_ = nullptr;
  nvml::Device device_ = nullptr;
};

// The GPU's activity for the idle gate and the contention watch (contention.h), from NVML.
class NvmlActivity : public GpuActivity {
 public:
  explicit NvmlActivity(const Nvml* nvml) : nvml_(nvml) {}
  std::optional<std::vector<SeenProcess>> ComputeProcesses() override {
    return nvml_->ComputeProcesses();
  }
  int TemperatureC() override { return nvml_->Read().temperature_c; }
  int SmClockMhz() override { return nvml_->Read().sm_clock_mhz; }
  int DefaultSmClockMhz() override { return nvml_->DefaultSmClockMhz(); }

 private:
  const Nvml* nvml_;
};

}  // namespace kbench::executor::cuda
