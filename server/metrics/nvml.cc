// NVML loaded at run time (dlopen "libnvidia-ml.so.1"): kbenchd links no NVIDIA library and
// starts on a host without the driver. The few entry points used are declared here by hand
// from NVML's stable C ABI (nvml.h), so the control plane includes no CUDA/NVML header.
#include <cctype>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/common/nvml_api.h"
#include "server/metrics/gpu_source.h"

namespace kbench::metrics {
namespace {

using nvml::Device;
using nvml::kClockMem;
using nvml::kClockSm;
using nvml::kStringBuffer;
using nvml::kSuccess;
using nvml::kTemperatureGpu;

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
  explicit NvmlSource(const nvml::Api& api) : api_(api) {}
  // NVML is shut down but the library stays mapped: the driver's library may leave threads or
  // atexit handlers behind, and unmapping under them would crash the process at exit.
  ~NvmlSource() override { api_.shutdown(); }

  absl::StatusOr<GpuIdentity> Find(const std::string& uuid, int ordinal) override {
    Device device = nullptr;
    if (!uuid.empty()) {
      const std::string normalized = NormalizeUuid(uuid);
      nvml::Return rc = api_.handle_by_uuid(normalized.c_str(), &device);
      if (rc != kSuccess) {
        return absl::NotFoundError(
            absl::StrCat("NVML has no GPU with UUID \"", uuid, "\": ", api_.error_string(rc)));
      }
    } else {
      if (ordinal < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("GPU without UUID needs an ordinal >= 0, got ", ordinal));
      }
      nvml::Return rc = api_.handle_by_index(static_cast<unsigned int>(ordinal), &device);
      if (rc != kSuccess) {
        return absl::NotFoundError(
            absl::StrCat("NVML has no GPU with index ", ordinal, ": ", api_.error_string(rc)));
      }
    }
    GpuIdentity identity;
    unsigned int index = 0;
    if (nvml::Return rc = api_.get_index(device, &index); rc != kSuccess) {
      return absl::InternalError(
          absl::StrCat("nvmlDeviceGetIndex failed: ", api_.error_string(rc)));
    }
    identity.index = static_cast<int>(index);
    char buffer[kStringBuffer] = {};
    if (api_.get_uuid(device, buffer, sizeof(buffer)) == kSuccess) identity.uuid = buffer;
    char name[kStringBuffer] = {};
    if (api_.get_name(device, name, sizeof(name)) == kSuccess) identity.name = name;
    absl::MutexLock lock(&mu_);
    devices_[identity.index] = device;
    return identity;
  }

  GpuSample Read(int index) const override {
    GpuSample s;
    Device device = nullptr;
    {
      absl::MutexLock lock(&mu_);
      auto it = devices_.find(index);
      if (it == devices_.end()) return s;
      device = it->second;
    }
    if (api_.utilization != nullptr) {
      nvml::Utilization u{};
      if (api_.utilization(device, &u) == kSuccess) {
        s.gpu_utilization_percent = u.gpu;
        s.memory_copy_utilization_percent = u.memory;
      }
    }
    if (api_.memory != nullptr) {
      nvml::Memory m{};
      if (api_.memory(device, &m) == kSuccess) {
        s.memory_total_bytes = m.total;
        s.memory_used_bytes = m.used;
        s.memory_free_bytes = m.free;
      }
    }
    unsigned int value = 0;
    if (api_.clock != nullptr) {
      if (api_.clock(device, kClockSm, &value) == kSuccess) s.sm_clock_mhz = value;
      if (api_.clock(device, kClockMem, &value) == kSuccess) s.memory_clock_mhz = value;
    }
    if (api_.temperature != nullptr &&
        api_.temperature(device, kTemperatureGpu, &value) == kSuccess) {
      s.temperature_celsius = value;
    }
    if (api_.power != nullptr && api_.power(device, &value) == kSuccess) {
      s.power_watts = value / 1000.0;  // NVML reports milliwatts
    }
    unsigned long long wide = 0;
    if (api_.energy != nullptr && api_.energy(device, &wide) == kSuccess) {
      s.energy_millijoules = wide;
    }
    if (api_.throttle_reasons != nullptr && api_.throttle_reasons(device, &wide) == kSuccess) {
      s.throttle_reasons = wide;
    }
    return s;
  }

 private:
  const nvml::Api& api_;
  mutable absl::Mutex mu_;
  std::map<int, Device> devices_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<GpuSource>> LoadNvml(const std::string& library) {
  absl::StatusOr<const nvml::Api*> loaded = nvml::Load(library);
  if (!loaded.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(loaded.status().message(), "; GPU gauges are disabled"));
  }
  const nvml::Api& api = **loaded;
  if (api.handle_by_uuid == nullptr || api.handle_by_index == nullptr || api.get_index == nullptr ||
      api.get_uuid == nullptr || api.get_name == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(library,
                     " lacks NVML's device entry points (nvmlDeviceGetHandleByUUID, "
                     "nvmlDeviceGetIndex, ...); is it the NVIDIA driver's NVML?"));
  }
  if (nvml::Return rc = api.init(); rc != kSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("nvmlInit_v2 failed: ", api.error_string(rc), "; GPU gauges are disabled"));
  }
  return std::make_unique<NvmlSource>(api);
}

}  // namespace kbench::metrics
