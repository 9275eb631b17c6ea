// Test helper: a GpuSource that serves fixed readings for GPUs the test declares, standing in
// for NVML on a machine without a GPU.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/metrics/gpu_source.h"

namespace kbench::testing {

class FakeGpuSource final : public metrics::GpuSource {
 public:
  struct Gpu {
    metrics::GpuIdentity identity;
    metrics::GpuSample sample;
  };

  // The state is shared with the test, which may change readings after handing the source over.
  struct State {
    absl::Mutex mu;
    std::map<std::string, Gpu> by_uuid;
    int reads = 0;
  };

  explicit FakeGpuSource(std::shared_ptr<State> state) : state_(std::move(state)) {}

  absl::StatusOr<metrics::GpuIdentity> Find(const std::string& uuid, int ordinal) override {
    absl::MutexLock lock(&state_->mu);
    for (const auto& [key, gpu] : state_->by_uuid) {
      if ((!uuid.empty() && key == uuid) || (uuid.empty() && gpu.identity.index == ordinal)) {
        return gpu.identity;
      }
    }
    return absl::NotFoundError(absl::StrCat("no fake GPU \"", uuid, "\""));
  }

  metrics::GpuSample Read(int index) const override {
    absl::MutexLock lock(&state_->mu);
    ++state_->reads;
    for (const auto& [key, gpu] : state_->by_uuid) {
      if (gpu.identity.index == index) return gpu.sample;
    }
    return {};
  }

 private:
  std::shared_ptr<State> state_;
};

// A fully populated reading of an H100-like GPU.
inline metrics::GpuSample FullSample() {
  metrics::GpuSample s;
  s.gpu_utilization_percent = 87;
  s.memory_copy_utilization_percent = 40;
  s.memory_total_bytes = uint64_t{81559} << 20;
  s.memory_used_bytes = uint64_t{1024} << 20;
  s.memory_free_bytes = uint64_t{80535} << 20;
  s.sm_clock_mhz = 1980;
  s.memory_clock_mhz = 2619;
  s.temperature_celsius = 41;
  s.power_watts = 123.5;
  s.energy_millijoules = 5000000;
  s.throttle_reasons = metrics::kThrottleSwPowerCap | metrics::kThrottleGpuIdle;
  return s;
}

}  // namespace kbench::testing
