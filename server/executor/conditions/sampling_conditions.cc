// The conditions of a sampling window: the stamp's readings and the thermal gate, in order.
#include "server/executor/conditions/sampling_conditions.h"

namespace kbench::executor {

SamplingConditions::SamplingConditions(ConditionsReader* reader, bool thermal_gate,
                                       const GateClock& clock, int64_t self_pid)
    : reader_(reader), clock_(clock), window_(self_pid) {
  if (thermal_gate && reader_ != nullptr) gate_.emplace(*reader_, clock_);
}

void SamplingConditions::BeforeSampling() {
  if (gate_) gate_->WaitBeforeSampling();
  // The host watch starts after the gate's wait: the window is the samples', not the wait's.
  host_.Begin();
  Observe();
}

void SamplingConditions::BetweenSamples() {
  Observe();
  if (gate_) gate_->MaybePause(last_);
}

v1::CleanStamp SamplingConditions::AfterSampling() {
  Observe();
  v1::CleanStamp stamp = window_.Stamp(host_.End());
  if (gate_) FillThermalGate(gate_->record(), &stamp);
  return stamp;
}

void SamplingConditions::Observe() {
  if (reader_ == nullptr) return;
  last_ = reader_->Read();
  window_.Observe(last_);
}

bool ThermalGateOn(bool has_thermal_gate, bool thermal_gate, bool ranked) {
  return has_thermal_gate ? thermal_gate : ranked;
}

}  // namespace kbench::executor
