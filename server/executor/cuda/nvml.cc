// The executor's view of its GPU through NVML: clocks, temperature, power and throttle
// reasons around each job (the entry points are loaded by server/common/nvml_api).
#include "server/executor/cuda/nvml.h"

#include <algorithm>
#include <utility>

namespace kbench::executor::cuda {

Nvml::~Nvml() {
  if (api_ != nullptr && device_ != nullptr) api_->shutdown();
}

bool Nvml::Open(const std::string& pci_bus_id) {
  absl::StatusOr<const nvml::Api*> loaded = nvml::Load();
  if (!loaded.ok() || (*loaded)->handle_by_pci_bus_id == nullptr) return false;
  const nvml::Api* api = *loaded;
  if (api->init() != nvml::kSuccess) return false;
  nvml::Device device = nullptr;
  if (api->handle_by_pci_bus_id(pci_bus_id.c_str(), &device) != nvml::kSuccess ||
      device == nullptr) {
    api->shutdown();
    return false;
  }
  api_ = api;
  device_ = device;
  return true;
}

NvmlReading Nvml::Read() const {
  NvmlReading r;
  if (!available()) return r;
  unsigned v = 0;
  if (api_->clock && api_->clock(device_, nvml::kClockSm, &v) == nvml::kSuccess) {
    r.sm_clock_mhz = static_cast<int>(v);
  }
  if (api_->clock && api_->clock(device_, nvml::kClockMem, &v) == nvml::kSuccess) {
    r.memory_clock_mhz = static_cast<int>(v);
  }
  if (api_->temperature &&
      api_->temperature(device_, nvml::kTemperatureGpu, &v) == nvml::kSuccess) {
    r.temperature_c = static_cast<int>(v);
  }
  if (api_->power && api_->power(device_, &v) == nvml::kSuccess) {
    r.power_watts = static_cast<double>(v) / 1000.0;  // NVML reports milliwatts
  }
  unsigned long long reasons = 0;
  if (api_->throttle_reasons && api_->throttle_reasons(device_, &reasons) == nvml::kSuccess) {
    r.throttle_reasons = reasons & kSlowdownMask;
    r.throttle_reason_names = nvml::ThrottleReasonNames(r.throttle_reasons);
  }
  return r;
}

ViolationCounters Nvml::ReadViolations() const {
  ViolationCounters c;
  if (!available() || api_->violation_status == nullptr) return c;
  const std::pair<int, uint64_t*> policies[] = {{nvml::kPerfPolicyPower, &c.power_ns},
                                                {nvml::kPerfPolicyThermal, &c.thermal_ns},
                                                {nvml::kPerfPolicyBoardLimit, &c.board_limit_ns},
                                                {nvml::kPerfPolicyReliability, &c.reliability_ns}};
  bool any = false;
  for (const auto& [policy, out] : policies) {
    nvml::ViolationTime t{};
    if (api_->violation_status(device_, policy, &t) == nvml::kSuccess) {
      *out = t.violation_time;
      any = true;
    }
  }
  c.read = any;
  return c;
}

ViolationSeconds ViolationsBetween(const ViolationCounters& before,
                                   const ViolationCounters& after) {
  ViolationSeconds s;
  if (!before.read || !after.read) return s;
  const auto diff = [](uint64_t a, uint64_t b) {
    return b > a ? static_cast<double>(b - a) * 1e-9 : 0.0;
  };
  s.read = true;
  s.power = diff(before.power_ns, after.power_ns);
  s.thermal = diff(before.thermal_ns, after.thermal_ns);
  s.board_limit = diff(before.board_limit_ns, after.board_limit_ns);
  s.reliability = diff(before.reliability_ns, after.reliability_ns);
  return s;
}

int Nvml::DefaultSmClockMhz() const {
  unsigned v = 0;
  if (available() && api_->default_applications_clock &&
      api_->default_applications_clock(device_, nvml::kClockSm, &v) == nvml::kSuccess) {
    return static_cast<int>(v);
  }
  return 0;
}

int Nvml::MaxSmClockMhz() const {
  unsigned v = 0;
  if (available() && api_->max_clock &&
      api_->max_clock(device_, nvml::kClockSm, &v) == nvml::kSuccess) {
    return static_cast<int>(v);
  }
  return 0;
}

namespace {

// NVML_VALUE_NOT_AVAILABLE (all ones) where the driver does not say, e.g. under MIG.
int64_t UsedBytes(unsigned long long nvml_value) {
  return nvml_value == ~0ULL ? 0 : static_cast<int64_t>(nvml_value);
}

}  // namespace

std::optional<std::vector<SeenProcess>> Nvml::ComputeProcesses() const {
  if (!available()) return std::nullopt;
  // Far more than one GPU hosts; NVML says INSUFFICIENT_SIZE beyond, and then the device is
  // busy enough that the list's tail does not matter.
  constexpr unsigned kCapacity = 64;
  unsigned count = kCapacity;
  // _v3 and _v2 fill the same nvmlProcessInfo_t; _v3 first, as drivers since 510 have it.
  auto list = api_->compute_processes_v3 != nullptr ? api_->compute_processes_v3
                                                    : api_->compute_processes_v2;
  if (list == nullptr) return std::nullopt;
  std::vector<nvml::ProcessInfo> infos(kCapacity);
  const nvml::Return r = list(device_, &count, infos.data());
  if (r != nvml::kSuccess && r != nvml::kErrorInsufficientSize) return std::nullopt;
  std::vector<SeenProcess> seen;
  for (unsigned i = 0; i < std::min(count, kCapacity); ++i) {
    seen.push_back({infos[i].pid, UsedBytes(infos[i].used_gpu_memory)});
  }
  return seen;
}

std::string Nvml::DriverVersion() const {
  char buf[nvml::kStringBuffer] = {};
  if (available() && api_->driver_version &&
      api_->driver_version(buf, sizeof(buf) - 1) == nvml::kSuccess) {
    return buf;
  }
  return "";
}

}  // namespace kbench::executor::cuda
