// The conditions of one job's sampling window (issue 29, item 2), as the benchmark pipeline
// sees them: the host watch, the device's readings before, between (at the sampler's progress
// ticks, ~0.2 s apart) and after the samples, and the thermal gate's waits and pauses; the
// result is the clean stamp every variant of the window carries.
#pragma once

#include <cstdint>
#include <optional>

#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/conditions/thermal_gate.h"

namespace kbench::executor {

class SamplingConditions {
 public:
  // `reader` may be null (a device without NVML, the cpu device): the stamp then has only the
  // host's part, and a gate has nothing to read. Not thread-safe.
  SamplingConditions(ConditionsReader* reader, bool thermal_gate, const GateClock& clock,
                     int64_t self_pid);
  // Just before the first sample: starts the host watch, waits for thermal headroom (gate on),
  // takes the first reading.
  void BeforeSampling();
  // Between samples (never inside a timed region): a reading, and a pause while the GPU is too
  // hot (gate on).
  void BetweenSamples();
  // After the last sample: the last reading and the window's stamp.
  v1::CleanStamp AfterSampling();

 private:
  void Observe();

  ConditionsReader* reader_;
  GateClock clock_;
  CleanStampWindow window_;
  HostWatch host_;
  std::optional<ThermalGate> gate_;
  ConditionsReading last_;
};

// The thermal gate's default (JobSpec.thermal_gate unset): on for ranked runs.
bool ThermalGateOn(bool has_thermal_gate, bool thermal_gate, bool ranked);

}  // namespace kbench::executor
