// NVML readings for the energy counter, the clean stamp and the environment's configuration.
#include "server/executor/cuda/nvml_conditions.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kbench::executor::cuda {
namespace {

// Pids from one of NVML's process lists (v3 structs); nullopt when the call is absent or fails.
using ProcessList = nvml::Return (*)(nvml::Device, unsigned int*, nvml::ProcessInfo*);
std::optional<std::vector<int64_t>> Pids(ProcessList list, nvml::Device device) {
  if (list == nullptr) return std::nullopt;
  constexpr unsigned kCapacity = 64;
  std::vector<nvml::ProcessInfo> infos(kCapacity);
  unsigned count = kCapacity;
  const nvml::Return r = list(device, &count, infos.data());
  if (r != nvml::kSuccess && r != nvml::kErrorInsufficientSize) return std::nullopt;
  std::vector<int64_t> pids;
  for (unsigned i = 0; i < std::min(count, kCapacity); ++i) pids.push_back(infos[i].pid);
  return pids;
}

std::string ComputeModeName(int mode) {
  switch (mode) {
    case nvml::kComputeModeDefault:
      return "default";
    case nvml::kComputeModeExclusiveThread:
      return "exclusive_thread";
    case nvml::kComputeModeProhibited:
      return "prohibited";
    case nvml::kComputeModeExclusiveProcess:
      return "exclusive_process";
  }
  return absl::StrCat("mode ", mode);
}

}  // namespace

std::optional<uint64_t> NvmlConditions::TotalMillijoules() {
  const nvml::Api* api = nvml_->api();
  unsigned long long mj = 0;
  if (api == nullptr || api->energy == nullptr ||
      api->energy(nvml_->device(), &mj) != nvml::kSuccess) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(mj);
}

std::optional<std::vector<int64_t>> NvmlConditions::ContextPids() const {
  const std::optional<std::vector<SeenProcess>> compute = nvml_->ComputeProcesses();
  if (!compute) return std::nullopt;
  std::set<int64_t> pids;
  for (const SeenProcess& p : *compute) pids.insert(p.pid);
  // Graphics contexts share the SMs too; a driver without the call is read as compute only.
  if (auto graphics = Pids(nvml_->api()->graphics_processes_v3, nvml_->device())) {
    pids.insert(graphics->begin(), graphics->end());
  }
  return std::vector<int64_t>(pids.begin(), pids.end());
}

void NvmlConditions::ReadXids(ConditionsReading* r) {
  std::call_once(xid_once_,
                 [&] { xid_ = std::make_unique<nvml::XidWatch>(nvml_->api(), nvml_->device()); });
  r->xid_watched = xid_->watching();
  const nvml::XidWatch::Seen seen = xid_->Drain();
  r->xid_events = seen.events;
  r->last_xid = seen.last_xid;
}

ConditionsReading NvmlConditions::ReadCounters() {
  ConditionsReading r;
  if (!nvml_->available()) return r;
  const NvmlReading basic = nvml_->Read();
  r.sm_clock_mhz = basic.sm_clock_mhz;
  r.memory_clock_mhz = basic.memory_clock_mhz;
  r.temperature_c = basic.temperature_c;
  r.throttle_reasons = basic.throttle_reasons;
  if (basic.power_watts > 0) r.power_watts = basic.power_watts;
  return r;
}

ConditionsReading NvmlConditions::Read() {
  ConditionsReading r = ReadCounters();
  if (!nvml_->available()) return r;
  const nvml::Api* api = nvml_->api();
  const nvml::Device device = nvml_->device();
  r.context_pids = ContextPids();
  int mode = 0;
  if (api->compute_mode && api->compute_mode(device, &mode) == nvml::kSuccess) {
    r.compute_mode = ComputeModeName(mode);
  }
  unsigned current = 0, pending = 0;
  r.mig_enabled =
      api->mig_mode && api->mig_mode(device, &current, &pending) == nvml::kSuccess && current != 0;
  const std::optional<std::vector<int64_t>> mps = Pids(api->mps_processes_v3, device);
  r.mps_active = mps && !mps->empty();
  nvml::MarginTemperature margin{nvml::kMarginTemperatureV1, 0};
  if (api->margin_temperature && api->margin_temperature(device, &margin) == nvml::kSuccess) {
    r.thermal_margin_c = margin.margin_temperature;
  }
  const ViolationCounters v = nvml_->ReadViolations();
  r.violation_ns = v.power_ns + v.thermal_ns + v.board_limit_ns + v.reliability_ns;
  unsigned long long ecc = 0;
  if (api->total_ecc_errors &&
      api->total_ecc_errors(device, nvml::kMemoryErrorUncorrected, nvml::kEccCounterVolatile,
                            &ecc) == nvml::kSuccess) {
    r.ecc_errors = ecc;
  }
  ReadXids(&r);
  return r;
}

void FillNvmlConfiguration(const Nvml& nvml, v1::Environment* env) {
  const nvml::Api* api = nvml.api();
  if (api == nullptr) return;
  const nvml::Device device = nvml.device();
  char buf[nvml::kStringBuffer] = {};
  if (api->vbios_version && api->vbios_version(device, buf, sizeof(buf) - 1) == nvml::kSuccess) {
    env->set_vbios_version(buf);
  }
  int mode = 0;
  if (api->compute_mode && api->compute_mode(device, &mode) == nvml::kSuccess) {
    env->set_compute_mode(ComputeModeName(mode));
  }
  int ecc = 0, ecc_pending = 0;
  if (api->ecc_mode && api->ecc_mode(device, &ecc, &ecc_pending) == nvml::kSuccess) {
    env->set_ecc_mode(ecc != 0 ? "on" : "off");
  }
  unsigned mig = 0, mig_pending = 0;
  if (api->mig_mode && api->mig_mode(device, &mig, &mig_pending) == nvml::kSuccess) {
    env->set_mig_mode(mig != 0 ? "on" : "off");
  }
  if (const std::optional<std::vector<int64_t>> mps = Pids(api->mps_processes_v3, device)) {
    env->set_mps_state(mps->empty() ? "off" : "on");
  }
  unsigned sm = 0, mem = 0, sm_default = 0, mem_default = 0;
  if (api->applications_clock && api->default_applications_clock &&
      api->applications_clock(device, nvml::kClockSm, &sm) == nvml::kSuccess &&
      api->applications_clock(device, nvml::kClockMem, &mem) == nvml::kSuccess &&
      api->default_applications_clock(device, nvml::kClockSm, &sm_default) == nvml::kSuccess &&
      api->default_applications_clock(device, nvml::kClockMem, &mem_default) == nvml::kSuccess) {
    env->set_application_clocks(
        sm == sm_default && mem == mem_default ? "default" : absl::StrCat("set ", sm, "/", mem));
  }
  unsigned milliwatts = 0;
  if (api->enforced_power_limit &&
      api->enforced_power_limit(device, &milliwatts) == nvml::kSuccess) {
    env->set_power_limit_watts(milliwatts / 1000.0);
  }
}

}  // namespace kbench::executor::cuda
