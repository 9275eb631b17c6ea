// The clean-measurement stamp: a window's readings, the verdict and the host's CPU watch.
#include "server/executor/conditions/clean_stamp.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace kbench::executor {
namespace {

void MinMax(int value, int& lo, int& hi) {
  if (value <= 0) return;
  lo = lo == 0 ? value : std::min(lo, value);
  hi = std::max(hi, value);
}

void AddReason(v1::StampReason reason, const std::string& detail, v1::CleanStamp* out) {
  out->add_reasons(reason);
  out->add_details(detail);
}

// A cumulative counter's change; 0 when it went backwards (a driver reload).
uint64_t Advance(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }

}  // namespace

void CleanStampWindow::Observe(const ConditionsReading& r) {
  ++readings_;
  if (!first_) first_ = r;
  last_ = r;
  if (r.context_pids) {
    for (int64_t pid : *r.context_pids) {
      if (pid != self_pid_) other_pids_.insert(pid);
    }
  }
  mig_ = mig_ || r.mig_enabled;
  mps_ = mps_ || r.mps_active;
  if (!r.compute_mode.empty()) compute_mode_ = r.compute_mode;
  MinMax(r.sm_clock_mhz, sm_min_, sm_max_);
  MinMax(r.memory_clock_mhz, mem_min_, mem_max_);
  temperature_max_ = std::max(temperature_max_, r.temperature_c);
  if (r.thermal_margin_c) {
    margin_min_ = margin_min_ ? std::min(*margin_min_, *r.thermal_margin_c) : *r.thermal_margin_c;
  }
  throttle_ |= r.throttle_reasons;
  xid_watched_ = xid_watched_ && r.xid_watched;
}

v1::CleanStamp CleanStampWindow::Stamp(const HostConditions& host) const {
  v1::CleanStamp out;
  out.set_stamped(readings_ > 0 || !host.cpu_affinity.empty());
  out.set_readings(readings_);
  for (int64_t pid : other_pids_) out.add_other_pids(pid);
  out.set_compute_mode(compute_mode_);
  out.set_mig_enabled(mig_);
  out.set_mps_active(mps_);
  out.set_sm_clock_min_mhz(sm_min_);
  out.set_sm_clock_max_mhz(sm_max_);
  out.set_memory_clock_min_mhz(mem_min_);
  out.set_memory_clock_max_mhz(mem_max_);
  out.set_throttle_reasons(throttle_);
  out.set_temperature_max_c(temperature_max_);
  if (margin_min_) out.set_thermal_margin_min_c(*margin_min_);
  if (first_ && last_) {
    out.set_violation_seconds(Advance(first_->violation_ns, last_->violation_ns) * 1e-9);
    out.set_ecc_errors(static_cast<int64_t>(Advance(first_->ecc_errors, last_->ecc_errors)));
    out.set_xid_events(static_cast<int64_t>(Advance(first_->xid_events, last_->xid_events)));
    out.set_xid_watched(xid_watched_);
    if (out.xid_events() > 0) out.set_last_xid(static_cast<int64_t>(last_->last_xid));
  }
  out.set_cpu_affinity(host.cpu_affinity);
  out.set_cpu_shared(host.cpu_shared);
  AddReasons(host, &out);
  out.set_clean(out.stamped() && out.reasons().empty());
  return out;
}

void CleanStampWindow::AddReasons(const HostConditions& host, v1::CleanStamp* out) const {
  if (!other_pids_.empty()) {
    AddReason(v1::STAMP_REASON_OTHER_PROCESS,
              absl::StrCat("other processes had a context on the device: pid ",
                           absl::StrJoin(other_pids_, ", ")),
              out);
  }
  if (mig_ || mps_) {
    AddReason(v1::STAMP_REASON_MIG_OR_MPS,
              absl::StrCat("the device is ", mig_ ? "MIG-partitioned" : "",
                           mig_ && mps_ ? " and " : "", mps_ ? "served by MPS" : ""),
              out);
  }
  if (sm_max_ > 0 && (sm_max_ - sm_min_) > rules_.max_sm_clock_spread * sm_max_) {
    AddReason(
        v1::STAMP_REASON_CLOCKS_MOVED,
        absl::StrFormat("the SM clock moved from %d to %d MHz during sampling", sm_min_, sm_max_),
        out);
  }
  if (throttle_ != 0 || out->violation_seconds() > 0) {
    AddReason(v1::STAMP_REASON_THROTTLED,
              absl::StrFormat("the clocks were held down (throttle bits 0x%x, %.3f s of "
                              "violations)",
                              throttle_, out->violation_seconds()),
              out);
  }
  if (margin_min_ && *margin_min_ <= rules_.min_thermal_margin_c) {
    AddReason(v1::STAMP_REASON_HOT,
              absl::StrFormat("thermal headroom fell to %d C (at most %d C means the GPU is "
                              "about to slow down)",
                              *margin_min_, rules_.min_thermal_margin_c),
              out);
  }
  if (out->ecc_errors() > 0 || out->xid_events() > 0) {
    const std::string last =
        out->xid_events() > 0 ? absl::StrFormat(" (the last Xid %d)", out->last_xid()) : "";
    AddReason(v1::STAMP_REASON_ECC_OR_XID,
              absl::StrFormat("%d ECC errors and %d Xid events%s during sampling",
                              out->ecc_errors(), out->xid_events(), last),
              out);
  }
  if (host.cpu_shared) AddReason(v1::STAMP_REASON_CPU_SHARED, host.cpu_detail, out);
}

std::string CpuListString(const std::vector<int>& cpus) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    parts.push_back(j == i ? absl::StrCat(cpus[i]) : absl::StrCat(cpus[i], "-", cpus[j]));
    i = j + 1;
  }
  return absl::StrJoin(parts, ",");
}

namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Busy jiffies (all but idle and iowait) of each CPU in `cpus`, from /proc/stat; empty when
// unreadable.
std::vector<uint64_t> BusyJiffies(const std::vector<int>& cpus) {
  std::ifstream f("/proc/stat");
  std::vector<uint64_t> busy(cpus.size(), 0);
  std::string line;
  bool any = false;
  while (std::getline(f, line)) {
    int cpu = -1;
    if (line.rfind("cpu", 0) != 0 || sscanf(line.c_str(), "cpu%d", &cpu) != 1) continue;
    const auto it = std::find(cpus.begin(), cpus.end(), cpu);
    if (it == cpus.end()) continue;
    std::istringstream in(line.substr(line.find(' ')));
    uint64_t v = 0, sum = 0;
    for (int field = 0; in >> v; ++field) {
      if (field != 3 && field != 4) sum += v;  // idle, iowait
    }
    busy[it - cpus.begin()] = sum;
    any = true;
  }
  return any ? busy : std::vector<uint64_t>{};
}

// This process's user + system jiffies (/proc/self/stat fields 14 and 15).
uint64_t SelfJiffies() {
  std::ifstream f("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(text.substr(close + 2));
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

}  // namespace

void HostWatch::Begin() {
  cpus_.clear();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus_.push_back(cpu);
    }
  }
  busy_before_ = BusyJiffies(cpus_);
  self_before_ = SelfJiffies();
  wall_before_ = WallSeconds();
}

HostConditions HostWatch::End() {
  HostConditions host;
  host.cpu_affinity = CpuListString(cpus_);
  const std::vector<uint64_t> busy_after = BusyJiffies(cpus_);
  const double wall = WallSeconds() - wall_before_;
  if (busy_after.size() != busy_before_.size() || busy_after.empty() || !(wall > 0)) return host;
  uint64_t busy = 0;
  for (size_t i = 0; i < busy_after.size(); ++i) busy += Advance(busy_before_[i], busy_after[i]);
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double others =
      (static_cast<double>(busy) - static_cast<double>(Advance(self_before_, SelfJiffies()))) / hz /
      wall;
  // Shared when the others left no CPU of ours free on average: the executor's thread then had
  // to wait for one (pinned to one CPU, a tenth of it counts).
  const double limit = std::max(static_cast<double>(cpus_.size()) - 1.0, 0.1);
  host.cpu_shared = others > limit;
  if (host.cpu_shared) {
    host.cpu_detail =
        absl::StrFormat("other processes used %.2f of the executor's %d CPUs (%s) during sampling",
                        others, cpus_.size(), host.cpu_affinity);
  }
  return host;
}

}  // namespace kbench::executor
