// The clean-measurement stamp (issue 29, item 2): readings of the device and the host taken
// during a sampling window, and the verdict clean or the list of reasons. Device-independent:
// the CUDA runner reads NVML through ConditionsReader, tests a scripted one; the cpu device
// has only the host part.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kbench/v1/conditions.pb.h"

namespace kbench::executor {

// One reading of a device's conditions; a field the device could not give stays unset / 0.
struct ConditionsReading {
  // Processes with a compute or graphics context on the device (this one included); nullopt
  // when the device cannot tell.
  std::optional<std::vector<int64_t>> context_pids;
  std::string compute_mode;  // "default", "exclusive_process", "prohibited", "" (unknown)
  bool mig_enabled = false;
  bool mps_active = false;
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int temperature_c = 0;
  // nvmlDeviceGetMarginTemperature: degrees before the GPU slows down; nullopt if unsupported.
  std::optional<int> thermal_margin_c;
  // Slowdown throttle bits only (benign ones masked by the reader).
  uint64_t throttle_reasons = 0;
  // Cumulative counters: the window's change is what counts.
  uint64_t violation_ns = 0;
  uint64_t ecc_errors = 0;
  uint64_t xid_events = 0;
  // Whether Xid events were watched (an NVML event set registered for the device), and the
  // number of the last Xid seen.
  bool xid_watched = false;
  uint64_t last_xid = 0;
  // The board's power draw (nvmlDeviceGetPowerUsage); nullopt where NVML does not give it.
  std::optional<double> power_watts;
};

// What reads the device. Read runs on one thread at a time; ReadCounters may run on another
// meanwhile (a profile's counter sampler), which an implementation must allow.
class ConditionsReader {
 public:
  virtual ~ConditionsReader() = default;
  virtual ConditionsReading Read() = 0;
  // Only what a profile's counter tracks draw (clocks, temperature, power), cheap enough to
  // read every few milliseconds; by default the whole reading.
  virtual ConditionsReading ReadCounters() { return Read(); }
};

// The host's side: the executor's CPUs and whether another process ran on them.
struct HostConditions {
  std::string cpu_affinity;  // "0-3,8"; empty when unknown
  bool cpu_shared = false;
  std::string cpu_detail;  // who shared it, in words
};

// Thresholds of the verdict.
struct StampRules {
  // The SM clock's (max - min) / max over the window; more is "clocks moved". 5%: larger than
  // the boost steps a GPU takes at a steady load (one or two 15 MHz bins of ~1.98 GHz), smaller
  // than the 10%+ that shows up in medians.
  double max_sm_clock_spread = 0.05;
  // Thermovision's rule: at 10 C or less of headroom the GPU is about to slow down.
  int min_thermal_margin_c = 10;
};

// Collects readings over one window and judges it. Observe before, during and after sampling.
class CleanStampWindow {
 public:
  explicit CleanStampWindow(int64_t self_pid, StampRules rules = {})
      : self_pid_(self_pid), rules_(rules) {}
  void Observe(const ConditionsReading& reading);
  // The stamp: stamped when any reading (or the host part) was taken; clean when no reason.
  v1::CleanStamp Stamp(const HostConditions& host) const;

 private:
  void AddReasons(const HostConditions& host, v1::CleanStamp* out) const;

  int64_t self_pid_;
  StampRules rules_;
  int readings_ = 0;
  std::optional<ConditionsReading> first_, last_;
  std::set<int64_t> other_pids_;
  bool mig_ = false, mps_ = false;
  std::string compute_mode_;
  int sm_min_ = 0, sm_max_ = 0, mem_min_ = 0, mem_max_ = 0, temperature_max_ = 0;
  std::optional<int> margin_min_;
  uint64_t throttle_ = 0;
  bool xid_watched_ = true;
};

// The executor's CPU affinity as a list ("0-3,8") from the CPUs in the set.
std::string CpuListString(const std::vector<int>& cpus);

// This process's affinity (sched_getaffinity) and whether other processes' CPU time on those
// CPUs between two /proc/stat readings exceeded `busy_fraction` of one CPU beyond our own use.
class HostWatch {
 public:
  void Begin();
  HostConditions End();

 private:
  std::vector<int> cpus_;
  std::vector<uint64_t> busy_before_;
  uint64_t self_before_ = 0;
  double wall_before_ = 0;
};

}  // namespace kbench::executor
