// Idle gate and contention watch.
#include "server/executor/contention.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace kbench::executor {
namespace {

// "At the default clock" with room for NVML's clock steps (e.g. 15 MHz on H100).
constexpr double kDefaultClockFraction = 0.95;
// How often the gate reads the device: NVML's readings update at about this rate.
constexpr double kGatePollSeconds = 0.1;

std::vector<SeenProcess> Others(const std::vector<SeenProcess>& all, int64_t self_pid) {
  std::vector<SeenProcess> others;
  for (const SeenProcess& p : all) {
    if (p.pid != self_pid) others.push_back(p);
  }
  return others;
}

// The conditions not met now, in words; empty when the device may be sampled.
std::vector<std::string> UnmetConditions(GpuActivity& device, const IdleGateOptions& options,
                                         int64_t self_pid) {
  std::vector<std::string> unmet;
  std::optional<std::vector<SeenProcess>> processes = device.ComputeProcesses();
  if (processes.has_value()) {
    const std::vector<SeenProcess> others = Others(*processes, self_pid);
    if (!others.empty()) {
      std::vector<int64_t> pids;
      for (const SeenProcess& p : others) pids.push_back(p.pid);
      unmet.push_back(
          absl::StrCat("other processes on the device (pids ", absl::StrJoin(pids, ", "), ")"));
    }
  }
  const int temperature = device.TemperatureC();
  if (options.max_temperature_c > 0 && temperature > options.max_temperature_c) {
    unmet.push_back(
        absl::StrCat("temperature ", temperature, " C above ", options.max_temperature_c, " C"));
  }
  const int sm = device.SmClockMhz();
  const int default_sm = device.DefaultSmClockMhz();
  if (sm > 0 && default_sm > 0 && sm < kDefaultClockFraction * default_sm) {
    unmet.push_back(absl::StrCat("SM clock ", sm, " MHz below the default ", default_sm, " MHz"));
  }
  return unmet;
}

}  // namespace

v1::IdleGate RunIdleGate(GpuActivity& device, const IdleGateOptions& options, int64_t self_pid,
                         const GateClock& clock) {
  v1::IdleGate gate;
  gate.set_enabled(options.timeout_seconds > 0);
  gate.set_max_temperature_c(options.max_temperature_c);
  gate.set_timeout_seconds(options.timeout_seconds);
  if (!gate.enabled()) return gate;
  const double start = clock.now_seconds();
  while (true) {
    const std::vector<std::string> unmet = UnmetConditions(device, options, self_pid);
    const double waited = clock.now_seconds() - start;
    if (unmet.empty() || waited >= options.timeout_seconds) {
      gate.set_passed(unmet.empty());
      gate.set_waited_seconds(waited);
      gate.set_unmet(absl::StrJoin(unmet, "; "));
      return gate;
    }
    clock.sleep(kGatePollSeconds);
  }
}

void ContentionWatch::Observe(GpuActivity& device) {
  observed_ = true;
  std::optional<std::vector<SeenProcess>> processes = device.ComputeProcesses();
  if (!processes.has_value()) {
    blind_ = true;
    return;
  }
  for (const SeenProcess& p : Others(*processes, self_pid_)) {
    if (seen_pids_.insert(p.pid).second) others_.push_back(p);
  }
}

void ContentionWatch::Fill(v1::Contention* out) const {
  out->set_checked(observed_ && !blind_);
  out->set_contended(!others_.empty());
  for (const SeenProcess& p : others_) {
    v1::DeviceProcess* d = out->add_other_processes();
    d->set_pid(p.pid);
    d->set_name(ProcessName(p.pid));
    d->set_used_memory_bytes(p.used_memory_bytes);
  }
  if (!others_.empty()) {
    out->set_detail(absl::StrCat(others_.size(),
                                 " other process(es) had a compute context on the device "
                                 "around sampling"));
  }
}

std::string ProcessName(int64_t pid) {
  std::ifstream comm(absl::StrCat("/proc/", pid, "/comm"));
  std::string name;
  std::getline(comm, name);
  return std::string(absl::StripTrailingAsciiWhitespace(name));
}

}  // namespace kbench::executor
