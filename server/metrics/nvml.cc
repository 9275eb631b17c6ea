// NVML loaded at run time (dlopen "libnvidia-ml.so.1"): kbenchd links no NVIDIA library and
// starts on a host without the driver. The few entry points used are declared here by hand
// from NVML's stable C ABI (nvml.h), so the control plane includes no CUDA/NVML header.
#include <dlfcn.h>

#include <cctype>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/metrics/gpu_source.h"

namespace kbench::metrics {
namespace {

// nvml.h: typedef enum nvmlReturn_enum nvmlReturn_t (NVML_SUCCESS = 0);
// typedef struct nvmlDevice_st* nvmlDevice_t.
using NvmlReturn = int;
struct NvmlDeviceOpaque;
using NvmlDevice = NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
// nvmlClockType_t and nvmlTemperatureSensors_t values.
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;
constexpr int kNvmlTemperatureGpu = 0;
// nvml.h: NVML_DEVICE_UUID_V2_BUFFER_SIZE 96, NVML_DEVICE_NAME_V2_BUFFER_SIZE 96.
constexpr unsigned int kNvmlStringBuffer = 96;

// nvmlUtilization_t and nvmlMemory_t (the v1 struct, exported by every driver).
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*handle_by_index)(unsigned int, NvmlDevice*) = nullptr;
  NvmlReturn (*get_index)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_uuid)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*get_name)(NvmlDevice, char*, unsigned int) = nullptr;
  // Optional readers: a missing symbol leaves its field empty.
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*energy)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*throttle)(NvmlDevice, unsigned long long*) = nullptr;
};

template <typename Fn>
void Bind(void* lib, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, symbol));
}

// CUDA reports a UUID as 16 bytes that callers often print as bare hex; NVML wants
// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string NormalizeUuid(const std::string& uuid) {
  std::string hex;
  std::string rest = uuid;
  if (rest.rfind("GPU-", 0) == 0) rest = rest.substr(4);
  for (char c : rest) {
    if (c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return uuid;  // MIG-... or unusual: as is
    hex.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (hex.size() != 32) return uuid;
  return absl::StrCat("GPU-", hex.substr(0, 8), "-", hex.substr(8, 4), "-", hex.substr(12, 4), "-",
                      hex.substr(16, 4), "-", hex.substr(20, 12));
}

class NvmlSource final : public GpuSource {
 public:
  explicit NvmlSource(NvmlApi api) : api_(api) {}
  // NVML is shut down but the library stays mapped: the driver's library may leave threads or
  // atexit handlers behind, and unmapping under them would crash the process at exit.
  ~NvmlSource() override { api_.shutdown(); }

  absl::StatusOr<GpuIdentity> Find(const std::string& uuid, int ordinal) override {
    NvmlDevice device = nullptr;
    if (!uuid.empty()) {
      const std::string normalized = NormalizeUuid(uuid);
      NvmlReturn rc = api_.handle_by_uuid(normalized.c_str(), &device);
      if (rc != kNvmlSuccess) {
        return absl::NotFoundError(
            absl::StrCat("NVML has no GPU with UUID \"", uuid, "\": ", api_.error_string(rc)));
      }
    } else {
      if (ordinal < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("GPU without UUID needs an ordinal >= 0, got ", ordinal));
      }
      NvmlReturn rc = api_.handle_by_index(static_cast<unsigned int>(ordinal), &device);
      if (rc != kNvmlSuccess) {
        return absl::NotFoundError(
            absl::StrCat("NVML has no GPU with index ", ordinal, ": ", api_.error_string(rc)));
      }
    }
    GpuIdentity identity;
    unsigned int index = 0;
    if (NvmlReturn rc = api_.get_index(device, &index); rc != kNvmlSuccess) {
      return absl::InternalError(
          absl::StrCat("nvmlDeviceGetIndex failed: ", api_.error_string(rc)));
    }
    identity.index = static_cast<int>(index);
    char buffer[kNvmlStringBuffer] = {};
    if (api_.get_uuid(device, buffer, sizeof(buffer)) == kNvmlSuccess) identity.uuid = buffer;
    char name[kNvmlStringBuffer] = {};
    if (api_.get_name(device, name, sizeof(name)) == kNvmlSuccess) identity.name = name;
    absl::MutexLock lock(&mu_);
    devices_[identity.index] = device;
    return identity;
  }

  GpuSample Read(int index) const override {
    GpuSample s;
    NvmlDevice device = nullptr;
    {
      absl::MutexLock lock(&mu_);
      auto it = devices_.find(index);
      if (it == devices_.end()) return s;
      device = it->second;
    }
    if (api_.utilization != nullptr) {
      NvmlUtilization u{};
      if (api_.utilization(device, &u) == kNvmlSuccess) {
        s.gpu_utilization_percent = u.gpu;
        s.memory_copy_utilization_percent = u.memory;
      }
    }
    if (api_.memory != nullptr) {
      NvmlMemory m{};
      if (api_.memory(device, &m) == kNvmlSuccess) {
        s.memory_total_bytes = m.total;
        s.memory_used_bytes = m.used;
        s.memory_free_bytes = m.free;
      }
    }
    unsigned int value = 0;
    if (api_.clock != nullptr) {
      if (api_.clock(device, kNvmlClockSm, &value) == kNvmlSuccess) s.sm_clock_mhz = value;
      if (api_.clock(device, kNvmlClockMem, &value) == kNvmlSuccess) s.memory_clock_mhz = value;
    }
    if (api_.temperature != nullptr &&
        api_.temperature(device, kNvmlTemperatureGpu, &value) == kNvmlSuccess) {
      s.temperature_celsius = value;
    }
    if (api_.power != nullptr && api_.power(device, &value) == kNvmlSuccess) {
      s.power_watts = value / 1000.0;  // NVML reports milliwatts
    }
    unsigned long long wide = 0;
    if (api_.energy != nullptr && api_.energy(device, &wide) == kNvmlSuccess) {
      s.energy_millijoules = wide;
    }
    if (api_.throttle != nullptr && api_.throttle(device, &wide) == kNvmlSuccess) {
      s.throttle_reasons = wide;
    }
    return s;
  }

 private:
  const NvmlApi api_;
  mutable absl::Mutex mu_;
  std::map<int, NvmlDevice> devices_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuSource>> LoadNvml(const std::string& library) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load NVML (", library, "): ", why != nullptr ? why : "unknown dlopen error",
        "; GPU gauges are disabled (is the NVIDIA driver installed?)"));
  }
  NvmlApi api;
  Bind(lib, "nvmlInit_v2", &api.init);
  Bind(lib, "nvmlShutdown", &api.shutdown);
  Bind(lib, "nvmlErrorString", &api.error_string);
  Bind(lib, "nvmlDeviceGetHandleByUUID", &api.handle_by_uuid);
  Bind(lib, "nvmlDeviceGetHandleByIndex_v2", &api.handle_by_index);
  Bind(lib, "nvmlDeviceGetIndex", &api.get_index);
  Bind(lib, "nvmlDeviceGetUUID", &api.get_uuid);
  Bind(lib, "nvmlDeviceGetName", &api.get_name);
  if (api.init == nullptr || api.shutdown == nullptr || api.error_string == nullptr ||
      api.handle_by_uuid == nullptr || api.handle_by_index == nullptr || api.get_index == nullptr ||
      api.get_uuid == nullptr || api.get_name == nullptr) {
    dlclose(lib);
    return absl::FailedPreconditionError(
        absl::StrCat(library,
                     " lacks NVML's core entry points (nvmlInit_v2, "
                     "nvmlDeviceGetHandleByUUID, ...); is it the NVIDIA driver's NVML?"));
  }
  Bind(lib, "nvmlDeviceGetUtilizationRates", &api.utilization);
  Bind(lib, "nvmlDeviceGetMemoryInfo", &api.memory);
  Bind(lib, "nvmlDeviceGetClockInfo", &api.clock);
  Bind(lib, "nvmlDeviceGetTemperature", &api.temperature);
  Bind(lib, "nvmlDeviceGetPowerUsage", &api.power);
  Bind(lib, "nvmlDeviceGetTotalEnergyConsumption", &api.energy);
  // Renamed in driver 535 ("throttle" became "clocks event"); older drivers have only the old
  // name, newer ones keep it as an alias.
  Bind(lib, "nvmlDeviceGetCurrentClocksEventReasons", &api.throttle);
  if (api.throttle == nullptr)
    Bind(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &api.throttle);

  if (NvmlReturn rc = api.init(); rc != kNvmlSuccess) {
    std::string why = api.error_string(rc);
    dlclose(lib);
    return absl::FailedPreconditionError(
        absl::StrCat("nvmlInit_v2 failed: ", why, "; GPU gauges are disabled"));
  }
  return std::make_unique<NvmlSource>(api);
}

}  // namespace kbench::metrics
