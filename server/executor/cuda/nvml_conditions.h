// Issue 29 over NVML: the energy counter (nvmlDeviceGetTotalEnergyConsumption), the readings of
// the clean-measurement stamp and the thermal gate, and the device's configuration that a
// reproduction must match (VBIOS, compute mode, ECC, MIG, MPS, application clocks, power
// limit). The logic over these readings is device-independent (server/executor/conditions/).
#pragma once

#include <memory>
#include <mutex>
#include <optional>

#include "kbench/v1/types.pb.h"
#include "server/common/nvml_events.h"
#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/conditions/energy.h"
#include "server/executor/cuda/nvml.h"

namespace kbench::executor::cuda {

// Borrows the runner's Nvml. Read and ReadCounters may run on two threads at once (a profile's
// counter sampler beside the job); NVML is thread-safe and the Xid watch locks.
class NvmlConditions : public ConditionsReader, public EnergyCounter {
 public:
  explicit NvmlConditions(const Nvml* nvml) : nvml_(nvml) {}
  // nullopt without NVML or where the GPU has no counter (before Volta).
  std::optional<uint64_t> TotalMillijoules() override;
  ConditionsReading Read() override;
  ConditionsReading ReadCounters() override;

 private:
  std::optional<std::vector<int64_t>> ContextPids() const;
  // The Xid events since the first Read (the watch is registered then: the Nvml is opened
  // after this object is made).
  void ReadXids(ConditionsReading* r);

  const Nvml* nvml_;
  std::once_flag xid_once_;
  std::unique_ptr<nvml::XidWatch> xid_;
};

// The Environment's configuration fields from NVML (left empty where it does not say).
void FillNvmlConfiguration(const Nvml& nvml, v1::Environment* env);

}  // namespace kbench::executor::cuda
