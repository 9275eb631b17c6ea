// NVML's C entry points, loaded at run time with dlopen: the driver ships libnvidia-ml.so.1 and
// kbench needs no NVIDIA header or library to build, and starts on a host without a driver.
// Shared by the metrics' GPU gauges (multi-GPU, scrape time) and the CUDA executor's clock and
// throttle readings (one GPU, around each job). Values from nvml.h's stable C ABI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

// nvmlClockType_t, nvmlTemperatureSensors_t.
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
inline constexpr int kTemperatureGpu = 0;
// NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_...
inline constexpr unsigned int kStringBuffer = 96;

// nvmlUtilization_t and nvmlMemory_t (the v1 struct, exported by every driver).
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// nvmlViolationTime_t (cumulative nanoseconds the clocks were held down by one cause) and the
// nvmlPerfPolicyType_t values kbench reads.
struct ViolationTime {
  unsigned long long reference_time;
  unsigned long long violation_time;
};
// nvmlProcessInfo_t, which the _v2 and _v3 process lists both fill (24 bytes an entry). The
// confidential-computing field (usedGpuCcProtectedMemory) belongs to nvmlProcessDetail_v1_t of
// nvmlDeviceGetRunningProcessDetailList, not to these lists: a struct with it read every entry
// after the first 8 bytes off, and an H200 reported "pid 1184890880" (a memory size) for the
// second process on the device.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
static_assert(sizeof(ProcessInfo) == 24, "nvmlProcessInfo_t is 24 bytes on x86-64 and aarch64");
// NVML_ERROR_INSUFFICIENT_SIZE: more processes than the buffer holds.
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr int kPerfPolicyPower = 0;
inline constexpr int kPerfPolicyThermal = 1;
inline constexpr int kPerfPolicyBoardLimit = 3;
inline constexpr int kPerfPolicyReliability = 5;
// nvmlMarginTemperature_t (nvmlDeviceGetMarginTemperature, driver 550+): its version word is
// NVML_STRUCT_VERSION(MarginTemperature, 1) = sizeof | 1 << 24.
struct MarginTemperature {
  unsigned int version;
  int margin_temperature;
};
inline constexpr unsigned int kMarginTemperatureV1 =
    static_cast<unsigned int>(sizeof(MarginTemperature)) | (1u << 24);
// nvmlComputeMode_t.
inline constexpr int kComputeModeDefault = 0;
inline constexpr int kComputeModeExclusiveThread = 1;
inline constexpr int kComputeModeProhibited = 2;
inline constexpr int kComputeModeExclusiveProcess = 3;
// nvmlMemoryErrorType_t and nvmlEccCounterType_t (issue 29: ECC errors during a window).
inline constexpr int kMemoryErrorUncorrected = 1;
inline constexpr int kEccCounterVolatile = 0;

// Events (issue 29: Xid errors during a sampling window). nvmlEventSet_t, nvmlEventData_t,
// nvmlEventTypeXidCriticalError (every Xid the driver reports; event_data is the Xid's number,
// 999 for one NVML does not know) and NVML_ERROR_TIMEOUT (no event waiting).
struct EventSetOpaque;
using EventSet = EventSetOpaque*;
struct EventData {
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
inline constexpr Return kErrorTimeout = 10;

// The entry points kbench uses. init, shutdown and error_string are always bound; any other may
// be null on an old driver, and its reading is then left empty.
struct Api {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*driver_version)(char*, unsigned int) = nullptr;
  Return (*handle_by_uuid)(const char*, Device*) = nullptr;
  Return (*handle_by_index)(unsigned int, Device*) = nullptr;
  Return (*handle_by_pci_bus_id)(const char*, Device*) = nullptr;
  Return (*get_index)(Device, unsigned int*) = nullptr;
  Return (*get_uuid)(Device, char*, unsigned int) = nullptr;
  Return (*get_name)(Device, char*, unsigned int) = nullptr;
  Return (*utilization)(Device, Utilization*) = nullptr;
  Return (*memory)(Device, Memory*) = nullptr;
  Return (*clock)(Device, int, unsigned int*) = nullptr;
  Return (*max_clock)(Device, int, unsigned int*) = nullptr;
  Return (*default_applications_clock)(Device, int, unsigned int*) = nullptr;
  Return (*temperature)(Device, int, unsigned int*) = nullptr;
  Return (*power)(Device, unsigned int*) = nullptr;         // milliwatts
  Return (*energy)(Device, unsigned long long*) = nullptr;  // millijoules
  Return (*throttle_reasons)(Device, unsigned long long*) = nullptr;
  Return (*violation_status)(Device, int, ViolationTime*) = nullptr;
  // Processes with a compute context on the device (issue 13: contended results).
  Return (*compute_processes_v3)(Device, unsigned int*, ProcessInfo*) = nullptr;
  Return (*compute_processes_v2)(Device, unsigned int*, ProcessInfo*) = nullptr;
  // Issue 29: the clean-measurement stamp and the environment a reproduction must match.
  Return (*graphics_processes_v3)(Device, unsigned int*, ProcessInfo*) = nullptr;
  Return (*mps_processes_v3)(Device, unsigned int*, ProcessInfo*) = nullptr;
  Return (*margin_temperature)(Device, MarginTemperature*) = nullptr;
  Return (*compute_mode)(Device, int*) = nullptr;
  Return (*mig_mode)(Device, unsigned int*, unsigned int*) = nullptr;
  Return (*ecc_mode)(Device, int*, int*) = nullptr;
  Return (*total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;
  Return (*vbios_version)(Device, char*, unsigned int) = nullptr;
  Return (*applications_clock)(Device, int, unsigned int*) = nullptr;
  Return (*enforced_power_limit)(Device, unsigned int*) = nullptr;  // milliwatts
  Return (*event_set_create)(EventSet*) = nullptr;
  Return (*register_events)(Device, unsigned long long, EventSet) = nullptr;
  Return (*event_set_wait)(EventSet, EventData*, unsigned int) = nullptr;  // timeout in ms
  Return (*event_set_free)(EventSet) = nullptr;
};

// Loads `library` and binds its entry points, once per path per process; the library stays
// mapped for the life of the process (unmapping under the driver's threads or atexit handlers
// can crash it at exit). Callers pair init() and shutdown() themselves (NVML counts them).
// FAILED_PRECONDITION naming the library when it cannot be loaded or is not NVML.
// Thread-safe.
absl::StatusOr<const Api*> Load(const std::string& library = "libnvidia-ml.so.1");

// NVML's clocks-event (throttle) reason bits (nvmlClocksEventReason*, stable since NVML 5.319).
inline constexpr uint64_t kThrottleGpuIdle = 0x1;
inline constexpr uint64_t kThrottleApplicationsClocksSetting = 0x2;
inline constexpr uint64_t kThrottleSwPowerCap = 0x4;
inline constexpr uint64_t kThrottleHwSlowdown = 0x8;
inline constexpr uint64_t kThrottleSyncBoost = 0x10;
inline constexpr uint64_t kThrottleSwThermalSlowdown = 0x20;
inline constexpr uint64_t kThrottleHwThermalSlowdown = 0x40;
inline constexpr uint64_t kThrottleHwPowerBrakeSlowdown = 0x80;
inline constexpr uint64_t kThrottleDisplayClockSetting = 0x100;

struct ThrottleReason {
  uint64_t bit;
  const char* name;  // e.g. "sw_power_cap"
};
// Every reason bit above with its name, in bit order.
inline constexpr ThrottleReason kThrottleReasons[] = {
    {kThrottleGpuIdle, "gpu_idle"},
    {kThrottleApplicationsClocksSetting, "applications_clocks_setting"},
    {kThrottleSwPowerCap, "sw_power_cap"},
    {kThrottleHwSlowdown, "hw_slowdown"},
    {kThrottleSyncBoost, "sync_boost"},
    {kThrottleSwThermalSlowdown, "sw_thermal_slowdown"},
    {kThrottleHwThermalSlowdown, "hw_thermal_slowdown"},
    {kThrottleHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {kThrottleDisplayClockSetting, "display_clock_setting"},
};

// Names of the bits set in a reason mask, e.g. {"sw_power_cap"}.
std::vector<std::string> ThrottleReasonNames(uint64_t reasons);

}  // namespace kbench::nvml
