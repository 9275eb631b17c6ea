// The Prometheus implementation of Metrics (a prometheus-cpp registry served by its pull
// Exposer), open to tests: they inject a fake GPU source and read the registry as text.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/metrics/exposer.h"
#include "server/metrics/gpu_collector.h"
#include "server/metrics/metrics.h"
#include "server/metrics/process_collector.h"

namespace kbench::metrics {

// Histogram buckets, in seconds. Jobs: a cpu job on a small shape finishes in well under a
// second, a CUDA job with the default stopping rule (0.5 s minimum, 15 s timeout per variant)
// in seconds, a compare of several variants or an Nsight Compute profile in minutes.
inline const std::vector<double>& RunDurationBuckets() {
  static const std::vector<double> b = {0.1, 0.25, 0.5, 1,  2.5, 5,   10,  15,
                                        20,  30,   45,  60, 120, 300, 600, 1800};
  return b;
}
// Queue wait: zero when the device is idle, up to a long queue of long jobs behind it.
inline const std::vector<double>& QueueWaitBuckets() {
  static const std::vector<double> b = {0.01, 0.05, 0.1, 0.5, 1,   5,    15,
                                        30,   60,   120, 300, 600, 1800, 3600};
  return b;
}
// Unary RPCs take milliseconds; WatchJob and GetArtifact streams last as long as their job or
// transfer, hence the long tail.
inline const std::vector<double>& RpcDurationBuckets() {
  static const std::vector<double> b = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                        0.5,    1,     2.5,    5,     10,   30,    60,   300};
  return b;
}

class PrometheusMetrics final : public Metrics {
 public:
  static absl::StatusOr<std::unique_ptr<PrometheusMetrics>> Create(
      const std::string& listen, GpuCollector::SourceFactory gpu_source, bool dcgm_gauges = true);
  ~PrometheusMetrics() override;

  std::string BoundAddress() const override { return bound_address_; }
  void JobSubmitted(JobKind kind, const std::string& device) override;
  void JobFinished(JobKind kind, const std::string& device, const std::string& state) override;
  void OwnerJobSubmitted(const std::string& owner) override;
  void SetQueueDepth(const std::string& device, int64_t depth) override;
  void ObserveQueueWait(const std::string& device, double seconds) override;
  void ObserveRunDuration(JobKind kind, const std::string& device, double seconds) override;
  void ExecutorRestarted(const std::string& device, ExecutorFailure cause) override;
  void ObserveRpc(const std::string& method, const std::string& code, double seconds) override;
  void SetArtifactBytes(int64_t bytes) override;
  void SetStoreState(bool writable, int64_t held_writes) override;
  void StoreWriteRefused(const std::string& reason) override;
  void SetFleetNode(const std::string& node, bool alive, double heartbeat_age_seconds) override;
  void LeasesTakenOver(int64_t jobs) override;
  void SetDeviceState(const std::string& device, const std::string& state) override;
  void SetJobRunning(const std::string& device, bool running) override;
  void AddGpu(const std::string& device_id, const std::string& uuid, const std::string& model_name,
              int ordinal) override;

  void AddOwnerGpuSeconds(const std::string& owner, double seconds) override;
  void SetKnownOwners(const std::vector<std::string>& owners) override;
  void AuthFailed(const std::string& reason) override;

  // What /metrics serves (kbench's series and the GPU gauges), in the text exposition format.
  std::string ScrapeText() const;

 private:
  explicit PrometheusMetrics(GpuCollector::SourceFactory gpu_source);
  // `owner` if the auth file lists it, else "other".
  std::string OwnerLabel(const std::string& owner);

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<GpuCollector> gpus_;
  std::shared_ptr<ProcessCollector> process_;
  prometheus::Family<prometheus::Counter>* jobs_submitted_;
  prometheus::Family<prometheus::Counter>* jobs_finished_;
  prometheus::Family<prometheus::Counter>* owner_jobs_submitted_;
  prometheus::Family<prometheus::Gauge>* queue_depth_;
  prometheus::Family<prometheus::Histogram>* queue_wait_;
  prometheus::Family<prometheus::Histogram>* run_duration_;
  prometheus::Family<prometheus::Counter>* executor_restarts_;
  prometheus::Family<prometheus::Counter>* rpc_requests_;
  prometheus::Family<prometheus::Histogram>* rpc_duration_;
  prometheus::Gauge* artifact_bytes_;
  prometheus::Gauge* store_writable_;
  prometheus::Gauge* store_held_writes_;
  prometheus::Family<prometheus::Counter>* store_write_failures_;
  prometheus::Family<prometheus::Gauge>* fleet_node_alive_;
  prometheus::Family<prometheus::Gauge>* fleet_heartbeat_age_;
  prometheus::Counter* lease_takeovers_;
  prometheus::Family<prometheus::Counter>* owner_gpu_seconds_;
  prometheus::Family<prometheus::Counter>* auth_failures_;
  prometheus::Family<prometheus::Gauge>* device_state_;
  prometheus::Family<prometheus::Gauge>* jobs_running_;
  // The reasons AuthFailed counts by name (server/auth's AuthFailureName); others are "other".
  static const std::set<std::string>& AuthFailureReasons();
  // The auth file's users: the only owners with their own label value (bounded cardinality).
  absl::Mutex owners_mu_;
  std::set<std::string> known_owners_ ABSL_GUARDED_BY(owners_mu_);
  std::string bound_address_;
  // Last: destroyed first, so no scrape runs against a half-destroyed registry.
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace kbench::metrics
