// Loading NVML with dlopen and binding its entry points.
#include "server/common/nvml_api.h"

#include <dlfcn.h>

#include <map>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::nvml {
namespace {

template <typename Fn>
void Bind(void* lib, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, symbol));
}

absl::StatusOr<const Api*> LoadUncached(const std::string& library) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load NVML (", library, "): ", why != nullptr ? why : "unknown dlopen error",
        " (is the NVIDIA driver installed?)"));
  }
  auto api = std::make_unique<Api>();
  Bind(lib, "nvmlInit_v2", &api->init);
  Bind(lib, "nvmlShutdown", &api->shutdown);
  Bind(lib, "nvmlErrorString", &api->error_string);
  if (api->init == nullptr || api->shutdown == nullptr || api->error_string == nullptr) {
    dlclose(lib);
    return absl::FailedPreconditionError(absl::StrCat(
        library, " lacks NVML's core entry points (nvmlInit_v2, nvmlShutdown, nvmlErrorString)"));
  }
  Bind(lib, "nvmlSystemGetDriverVersion", &api->driver_version);
  Bind(lib, "nvmlDeviceGetHandleByUUID", &api->handle_by_uuid);
  Bind(lib, "nvmlDeviceGetHandleByIndex_v2", &api->handle_by_index);
  Bind(lib, "nvmlDeviceGetHandleByPciBusId_v2", &api->handle_by_pci_bus_id);
  Bind(lib, "nvmlDeviceGetIndex", &api->get_index);
  Bind(lib, "nvmlDeviceGetUUID", &api->get_uuid);
  Bind(lib, "nvmlDeviceGetName", &api->get_name);
  Bind(lib, "nvmlDeviceGetUtilizationRates", &api->utilization);
  Bind(lib, "nvmlDeviceGetMemoryInfo", &api->memory);
  Bind(lib, "nvmlDeviceGetClockInfo", &api->clock);
  Bind(lib, "nvmlDeviceGetMaxClockInfo", &api->max_clock);
  Bind(lib, "nvmlDeviceGetDefaultApplicationsClock", &api->default_applications_clock);
  Bind(lib, "nvmlDeviceGetTemperature", &api->temperature);
  Bind(lib, "nvmlDeviceGetPowerUsage", &api->power);
  Bind(lib, "nvmlDeviceGetTotalEnergyConsumption", &api->energy);
  Bind(lib, "nvmlDeviceGetViolationStatus", &api->violation_status);
  Bind(lib, "nvmlDeviceGetComputeRunningProcesses_v3", &api->compute_processes_v3);
  if (api->compute_processes_v3 == nullptr) {
    Bind(lib, "nvmlDeviceGetComputeRunningProcesses_v2", &api->compute_processes_v2);
  }
  Bind(lib, "nvmlDeviceGetGraphicsRunningProcesses_v3", &api->graphics_processes_v3);
  Bind(lib, "nvmlDeviceGetMPSComputeRunningProcesses_v3", &api->mps_processes_v3);
  Bind(lib, "nvmlDeviceGetMarginTemperature", &api->margin_temperature);
  Bind(lib, "nvmlDeviceGetComputeMode", &api->compute_mode);
  Bind(lib, "nvmlDeviceGetMigMode", &api->mig_mode);
  Bind(lib, "nvmlDeviceGetEccMode", &api->ecc_mode);
  Bind(lib, "nvmlDeviceGetTotalEccErrors", &api->total_ecc_errors);
  Bind(lib, "nvmlDeviceGetVbiosVersion", &api->vbios_version);
  Bind(lib, "nvmlDeviceGetApplicationsClock", &api->applications_clock);
  Bind(lib, "nvmlDeviceGetEnforcedPowerLimit", &api->enforced_power_limit);
  Bind(lib, "nvmlEventSetCreate", &api->event_set_create);
  Bind(lib, "nvmlDeviceRegisterEvents", &api->register_events);
  Bind(lib, "nvmlEventSetWait_v2", &api->event_set_wait);
  Bind(lib, "nvmlEventSetFree", &api->event_set_free);
  // Renamed in driver 535 ("throttle" became "clocks event"); older drivers have only the old
  // name, newer ones keep it as an alias.
  Bind(lib, "nvmlDeviceGetCurrentClocksEventReasons", &api->throttle_reasons);
  if (api->throttle_reasons == nullptr) {
    Bind(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &api->throttle_reasons);
  }
  return api.release();
}

}  // namespace

absl::StatusOr<const Api*> Load(const std::string& library) {
  static std::mutex mu;
  // Never freed: the library stays mapped for the process's life (see the header).
  static auto* loaded = new std::map<std::string, absl::StatusOr<const Api*>>();
  std::lock_guard lock(mu);
  auto it = loaded->find(library);
  if (it == loaded->end()) it = loaded->emplace(library, LoadUncached(library)).first;
  return it->second;
}

std::vector<std::string> ThrottleReasonNames(uint64_t reasons) {
  std::vector<std::string> names;
  for (const ThrottleReason& r : kThrottleReasons) {
    if (reasons & r.bit) names.push_back(r.name);
  }
  return names;
}

}  // namespace kbench::nvml
