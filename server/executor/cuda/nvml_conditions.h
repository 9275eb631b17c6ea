// Issue 29 over NVML: the energy counter (nvmlDeviceGetTotalEnergyConsumption), the readings of
// the clean-measurement stamp and the thermal gate, and the device's configuration that a
// reproduction must match (VBIOS, compute mode, ECC, MIG, MPS, application clocks, power
// limit). The logic over these readings is device-independent (server/executor/conditions/).
#pragma once

#include <optional>

#include "kbench/v1/types.pb.h"
#include "server/executor/conditions/clean_stamp.h"
#include "server/executor/conditions/energy.h"
#include "server/executor/cuda/nvml.h"

namespace kbench::executor::cuda {

// Not thread-safe; borrows the runner's Nvml.
class NvmlConditions : public ConditionsReader, public EnergyCounter {
 public:
  explicit NvmlConditions(const Nvml* nvml) : nvml_(nvml) {}
  // nullopt without NVML or where the GPU has no counter (before Volta).
  std::optional<uint64_t> TotalMillijoules() override;
  ConditionsReading Read() override;

 private:
  std::optional<std::vector<int64_t>> ContextPids() const;
  const Nvml* nvml_;
};

// The Environment's configuration fields from NVML (left empty where it does not say).
void FillNvmlConfiguration(const Nvml& nvml, v1::Environment* env);

}  // namespace kbench::executor::cuda
