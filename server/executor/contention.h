// Comparable conditions on a shared GPU (issue 13, item 7): other processes seen on the device
// around sampling make a result `contended` (leaderboards leave it out), and an optional idle
// gate waits, bounded, until the device is idle, cool and at its default SM clock before
// sampling. Device-independent: the CUDA runner supplies NVML's readings through GpuActivity,
// tests a scripted one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kbench/v1/contention.pb.h"

namespace kbench::executor {

struct SeenProcess {
  int64_t pid = 0;
  int64_t used_memory_bytes = 0;
};

// What the gate and the watch read from a device. Not thread-safe.
class GpuActivity {
 public:
  virtual ~GpuActivity() = default;
  // Processes with a compute context on the device; nullopt when it cannot tell (no NVML).
  virtual std::optional<std::vector<SeenProcess>> ComputeProcesses() = 0;
  // 0 when unknown.
  virtual int TemperatureC() = 0;
  virtual int SmClockMhz() = 0;
  virtual int DefaultSmClockMhz() = 0;
};

struct IdleGateOptions {
  // 0: no gate.
  double timeout_seconds = 0;
  // 0: no temperature condition.
  int max_temperature_c = 0;
};

// The injected passage of time: a test's clock moves only when the gate sleeps.
struct GateClock {
  std::function<double()> now_seconds;
  std::function<void(double seconds)> sleep;
};

// Polls `device` until no other process uses it, its temperature is at most the maximum and its
// SM clock is at least 95 % of the default, or until the timeout; says which held.
v1::IdleGate RunIdleGate(GpuActivity& device, const IdleGateOptions& options, int64_t self_pid,
                         const GateClock& clock);

// Collects the other processes seen at each Observe (before and after sampling).
class ContentionWatch {
 public:
  explicit ContentionWatch(int64_t self_pid) : self_pid_(self_pid) {}
  void Observe(GpuActivity& device);
  // checked only when every observation could tell; contended when any saw another process.
  void Fill(v1::Contention* out) const;

 private:
  int64_t self_pid_;
  bool observed_ = false;
  bool blind_ = false;
  std::vector<SeenProcess> others_;
  std::set<int64_t> seen_pids_;
};

// The process's name from /proc/PID/comm; empty when not readable (another PID namespace).
std::string ProcessName(int64_t pid);

}  // namespace kbench::executor
