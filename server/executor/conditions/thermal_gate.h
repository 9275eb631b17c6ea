// The thermal gate (issue 29, item 2; Thermovision's rule applied to a queue): before sampling,
// wait (bounded, polling faster when the headroom is close) until the GPU's thermal headroom is
// at least 20 C; during sampling, pause whenever it falls to 10 C or less until it is back at
// 20 C. Device-independent: the headroom comes from a ConditionsReader, time from a GateClock.
#pragma once

#include <optional>

#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/contention.h"

namespace kbench::executor {

struct ThermalGateOptions {
  int resume_margin_c = 20;
  int pause_margin_c = 10;
  // Bound on the wait before sampling and on each pause: a GPU that does not cool in this long
  // (a hot room, a neighbour's load) is sampled anyway, and the stamp says so.
  double max_wait_seconds = 60;
  // Polls: every `poll_seconds` when the headroom is far below, every `close_poll_seconds`
  // within 3 C of the target (adaptive: the last degrees come fast once the load is gone).
  double poll_seconds = 1.0;
  double close_poll_seconds = 0.25;
};

// What the gate did for one window.
struct ThermalGateRecord {
  bool enabled = false;
  // The device reports no margin (nvmlDeviceGetMarginTemperature unsupported): nothing gated.
  bool unsupported = false;
  double waited_seconds = 0;
  int pauses = 0;
  // A wait ran out before the headroom came back.
  bool timed_out = false;
};

class ThermalGate {
 public:
  ThermalGate(ConditionsReader& reader, const GateClock& clock, ThermalGateOptions options = {})
      : reader_(reader), clock_(clock), options_(options) {
    record_.enabled = true;
  }
  // Before sampling: waits until the headroom is at least resume_margin_c (bounded).
  void WaitBeforeSampling();
  // Between samples: if the headroom is at most pause_margin_c, waits as above and counts a
  // pause. `reading` is a fresh reading (the stamp's), so the gate adds no NVML call.
  void MaybePause(const ConditionsReading& reading);
  const ThermalGateRecord& record() const { return record_; }

 private:
  void WaitForHeadroom(std::optional<int> margin);

  ConditionsReader& reader_;
  GateClock clock_;
  ThermalGateOptions options_;
  ThermalGateRecord record_;
};

// The record into a stamp's fields.
void FillThermalGate(const ThermalGateRecord& record, v1::CleanStamp* stamp);

}  // namespace kbench::executor
