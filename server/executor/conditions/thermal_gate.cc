// The thermal gate: bounded, adaptive waits for thermal headroom before and during sampling.
#include "server/executor/conditions/thermal_gate.h"

#include <algorithm>

namespace kbench::executor {

void ThermalGate::WaitBeforeSampling() { WaitForHeadroom(reader_.Read().thermal_margin_c); }

void ThermalGate::MaybePause(const ConditionsReading& reading) {
  if (!reading.thermal_margin_c) {
    record_.unsupported = true;
    return;
  }
  if (*reading.thermal_margin_c > options_.pause_margin_c) return;
  ++record_.pauses;
  WaitForHeadroom(reading.thermal_margin_c);
}

void ThermalGate::WaitForHeadroom(std::optional<int> margin) {
  const double start = clock_.now_seconds();
  while (true) {
    if (!margin) {
      record_.unsupported = true;
      break;
    }
    if (*margin >= options_.resume_margin_c) break;
    const double elapsed = clock_.now_seconds() - start;
    if (elapsed >= options_.max_wait_seconds) {
      record_.timed_out = true;
      break;
    }
    const bool close = *margin >= options_.resume_margin_c - 3;
    clock_.sleep(std::min(close ? options_.close_poll_seconds : options_.poll_seconds,
                          options_.max_wait_seconds - elapsed));
    margin = reader_.Read().thermal_margin_c;
  }
  record_.waited_seconds += clock_.now_seconds() - start;
}

void FillThermalGate(const ThermalGateRecord& record, v1::CleanStamp* stamp) {
  stamp->set_thermal_gate(record.enabled);
  stamp->set_thermal_wait_seconds(record.waited_seconds);
  stamp->set_thermal_pauses(record.pauses);
  if (record.enabled && record.timed_out) {
    stamp->add_reasons(v1::STAMP_REASON_HOT);
    stamp->add_details("the thermal gate's wait for 20 C of headroom ran out; sampled without it");
    stamp->set_clean(false);
  }
}

}  // namespace kbench::executor
