// Per-GPU gauges read at scrape time, named and labelled as dcgm-exporter names them
// (DCGM_FI_DEV_*, labels gpu, UUID, modelName) so that its users' dashboards and alerts work
// unchanged, plus a few kbench_gpu_* series where dcgm's shape is awkward (bytes, throttle
// reasons one per label). docs/operations.md lists them with their units.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "server/metrics/gpu_source.h"

namespace kbench::metrics {

class GpuCollector final : public prometheus::Collectable {
 public:
  using SourceFactory = std::function<absl::StatusOr<std::unique_ptr<GpuSource>>()>;

  // `factory` runs once, at the first AddGpu: a daemon without GPUs never loads NVML.
  explicit GpuCollector(SourceFactory factory);

  // Leaves out the DCGM_FI_* families (the kbench_gpu_* ones stay): where dcgm-exporter runs
  // beside kbenchd, its series would otherwise be doubled. Call before serving.
  void OmitDcgmNames() { dcgm_names_ = false; }

  // Serves gauges for the GPU with `uuid` (or driver index `ordinal` when uuid is empty) under
  // kbench's device id (e.g. "cuda:0"). Adding a device id again replaces its entry (an executor
  // restart re-announces its GPU). FAILED_PRECONDITION when NVML cannot be loaded, NOT_FOUND when
  // the driver does not know the GPU, ALREADY_EXISTS when another device id has it.
  absl::Status AddGpu(const std::string& device_id, const std::string& uuid,
                      const std::string& model_name, int ordinal);

  // Reads every GPU now. Series the driver cannot give are absent; with no GPU, no family.
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct Gpu {
    std::string device_id;
    int index = -1;
    std::vector<prometheus::ClientMetric::Label> labels;
  };

  mutable absl::Mutex mu_;
  SourceFactory factory_ ABSL_GUARDED_BY(mu_);
  bool source_tried_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status source_status_ ABSL_GUARDED_BY(mu_);
  // Set once, under mu_, then only read: Collect uses it outside the lock.
  std::shared_ptr<GpuSource> source_ ABSL_GUARDED_BY(mu_);
  std::vector<Gpu> gpus_ ABSL_GUARDED_BY(mu_);
  bool dcgm_names_ = true;
};

}  // namespace kbench::metrics
