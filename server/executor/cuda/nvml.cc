// NVML through dlopen: the handful of entry points kbench reads, declared here by hand (the
// driver ships libnvidia-ml.so.1; the -dev header is not needed to build).
#include "server/executor/cuda/nvml.h"

#include <dlfcn.h>

namespace kbench::executor::cuda {
namespace {

// From nvml.h (NVML API version 12): the values the calls below take and return.
using nvmlReturn_t = int;
constexpr nvmlReturn_t kNvmlSuccess = 0;
using nvmlDevice_t = void*;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;

struct ReasonName {
  uint64_t bit;
  const char* name;
};
// nvmlClocksEventReason* / nvmlClocksThrottleReason* bits.
constexpr ReasonName kReasonNames[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*handle_by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*default_app_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*throttle_reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
};

namespace {
template <typename Fn>
void Bind(void* library, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
}
}  // namespace

Nvml::~Nvml() {
  if (api_ != nullptr && api_->shutdown != nullptr && device_ != nullptr) api_->shutdown();
  delete api_;
  if (library_ != nullptr) dlclose(library_);
}

bool Nvml::Open(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return false;
  api_ = new Api;
  Bind(library_, "nvmlInit_v2", &api_->init);
  Bind(library_, "nvmlShutdown", &api_->shutdown);
  Bind(library_, "nvmlDeviceGetHandleByPciBusId_v2", &api_->handle_by_pci);
  Bind(library_, "nvmlDeviceGetClockInfo", &api_->clock_info);
  Bind(library_, "nvmlDeviceGetMaxClockInfo", &api_->max_clock_info);
  Bind(library_, "nvmlDeviceGetDefaultApplicationsClock", &api_->default_app_clock);
  Bind(library_, "nvmlDeviceGetTemperature", &api_->temperature);
  Bind(library_, "nvmlDeviceGetPowerUsage", &api_->power_usage);
  // Renamed "clocks event reasons" in NVML 12.2; the old name remains as an alias.
  Bind(library_, "nvmlDeviceGetCurrentClocksEventReasons", &api_->throttle_reasons);
  if (api_->throttle_reasons == nullptr) {
    Bind(library_, "nvmlDeviceGetCurrentClocksThrottleReasons", &api_->throttle_reasons);
  }
  Bind(library_, "nvmlSystemGetDriverVersion", &api_->driver_version);
  if (api_->init == nullptr || api_->handle_by_pci == nullptr || api_->init() != kNvmlSuccess) {
    return false;
  }
  nvmlDevice_t device = nullptr;
  if (api_->handle_by_pci(pci_bus_id.c_str(), &device) != kNvmlSuccess || device == nullptr) {
    api_->shutdown();
    return false;
  }
  device_ = device;
  return true;
}

NvmlReading Nvml::Read() const {
  NvmlReading r;
  if (!available()) return r;
  unsigned v = 0;
  if (api_->clock_info && api_->clock_info(device_, kNvmlClockSm, &v) == kNvmlSuccess) {
    r.sm_clock_mhz = static_cast<int>(v);
  }
  if (api_->clock_info && api_->clock_info(device_, kNvmlClockMem, &v) == kNvmlSuccess) {
    r.memory_clock_mhz = static_cast<int>(v);
  }
  if (api_->temperature && api_->temperature(device_, kNvmlTemperatureGpu, &v) == kNvmlSuccess) {
    r.temperature_c = static_cast<int>(v);
  }
  if (api_->power_usage && api_->power_usage(device_, &v) == kNvmlSuccess) {
    r.power_watts = static_cast<double>(v) / 1000.0;  // NVML reports milliwatts
  }
  unsigned long long reasons = 0;
  if (api_->throttle_reasons && api_->throttle_reasons(device_, &reasons) == kNvmlSuccess) {
    r.throttle_reasons = reasons & kSlowdownMask;
    r.throttle_reason_names = ThrottleReasonNames(r.throttle_reasons);
  }
  return r;
}

int Nvml::DefaultSmClockMhz() const {
  unsigned v = 0;
  if (available() && api_->default_app_clock &&
      api_->default_app_clock(device_, kNvmlClockSm, &v) == kNvmlSuccess) {
    return static_cast<int>(v);
  }
  return 0;
}

int Nvml::MaxSmClockMhz() const {
  unsigned v = 0;
  if (available() && api_->max_clock_info &&
      api_->max_clock_info(device_, kNvmlClockSm, &v) == kNvmlSuccess) {
    return static_cast<int>(v);
  }
  return 0;
}

std::string Nvml::DriverVersion() const {
  char buf[96] = {};
  if (available() && api_->driver_version &&
      api_->driver_version(buf, sizeof(buf) - 1) == kNvmlSuccess) {
    return buf;
  }
  return "";
}

std::vector<std::string> Nvml::ThrottleReasonNames(uint64_t reasons) {
  std::vector<std::string> names;
  for (const ReasonName& r : kReasonNames) {
    if (reasons & r.bit) names.push_back(r.name);
  }
  return names;
}

}  // namespace kbench::executor::cuda
