// kbenchd's Prometheus metrics: the series of metrics.h in a prometheus-cpp registry, served
// with the GPU gauges on /metrics. Label values are kept to bounded sets.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status_macros.h"
#include "prometheus/text_serializer.h"
#include "server/common/device_id.h"
#include "server/common/logging.h"
#include "server/metrics/prometheus_metrics.h"

#ifndef KBENCH_VERSION
#define KBENCH_VERSION "unknown"
#endif
#ifndef KBENCH_GIT_REVISION
#define KBENCH_GIT_REVISION "unknown"
#endif

namespace kbench::metrics {
namespace {

const std::set<std::string>& FinalStates() {
  static const std::set<std::string> s = {"succeeded", "failed", "cancelled"};
  return s;
}
const std::set<std::string>& GrpcCodes() {
  static const std::set<std::string> s = {"OK",
                                          "CANCELLED",
                                          "UNKNOWN",
                                          "INVALID_ARGUMENT",
                                          "DEADLINE_EXCEEDED",
                                          "NOT_FOUND",
                                          "ALREADY_EXISTS",
                                          "PERMISSION_DENIED",
                                          "RESOURCE_EXHAUSTED",
                                          "FAILED_PRECONDITION",
                                          "ABORTED",
                                          "OUT_OF_RANGE",
                                          "UNIMPLEMENTED",
                                          "INTERNAL",
                                          "UNAVAILABLE",
                                          "DATA_LOSS",
                                          "UNAUTHENTICATED"};
  return s;
}

// A name of a node or of a model word: lower-case letters, digits, '.', '_', '-' (bounded).
bool IsTargetWord(absl::string_view w, size_t max_size) {
  if (w.empty() || w.size() > max_size) return false;
  for (char c : w) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// ListDevices' device states (DeviceInfo.state), as kbench_device_state's state label.
const std::vector<std::string>& DeviceStates() {
  static const std::vector<std::string> s = {"starting", "ready", "restarting", "failed"};
  return s;
}

// A device id ("cuda:0"), or a fleet's target as the store keeps it once resolved ("cpu:any",
// "h100:any", "gpu-a/cuda:0"; server/fleet/target.h): targets name the fleet's own nodes and
// models, so the set stays bounded.
bool IsDevice(const std::string& d) {
  absl::string_view rest = d;
  if (const size_t slash = rest.find('/'); slash != absl::string_view::npos) {
    if (!IsTargetWord(rest.substr(0, slash), 63)) return false;
    rest.remove_prefix(slash + 1);
  }
  if (ParseDeviceId(rest).ok()) return true;
  return absl::EndsWith(rest, ":any") && IsTargetWord(rest.substr(0, rest.size() - 4), 32);
}

// An RPC's short name, e.g. "SubmitJob": an identifier, not a free-form string.
bool IsMethod(const std::string& m) {
  if (m.empty() || m.size() > 64 || !std::isalpha(static_cast<unsigned char>(m[0]))) {
    return false;
  }
  for (char c : m) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A label value outside its bounded set becomes "other": one wrong caller must not grow the
// series without bound. Each distinct wrong value is logged once (up to a cap), since it is a
// bug in the caller.
class LabelGuard {
 public:
  std::string Check(const char* label, const std::string& value, bool ok) {
    if (ok) return value;
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      if (warned_.size() < 64) first = warned_.insert(absl::StrCat(label, "=", value)).second;
    }
    if (first) {
      logging::Log(logging::Level::kWarn, "metrics: unexpected label value counted as \"other\"",
                   {{"label", label}, {"value", value}});
    }
    return "other";
  }

 private:
  absl::Mutex mu_;
  std::set<std::string> warned_ ABSL_GUARDED_BY(mu_);
};

LabelGuard& Guard() {
  static LabelGuard* guard = new LabelGuard();
  return *guard;
}

// Kind and cause are enums: every value is a documented label, nothing to guard.
std::string Kind(JobKind v) { return JobKindName(v); }
std::string State(const std::string& v) {
  return Guard().Check("state", v, FinalStates().count(v) > 0);
}
std::string Cause(ExecutorFailure v) { return ExecutorFailureName(v); }

constexpr ExecutorFailure kExecutorFailures[] = {
    ExecutorFailure::kSignal,      ExecutorFailure::kExit,        ExecutorFailure::kStickyError,
    ExecutorFailure::kStartFailed, ExecutorFailure::kHung,        ExecutorFailure::kCancelKill,
    ExecutorFailure::kWireError,   ExecutorFailure::kOwnerChanged};
std::string Code(const std::string& v) {
  return Guard().Check("code", v, GrpcCodes().count(v) > 0);
}
std::string Device(const std::string& v) { return Guard().Check("device", v, IsDevice(v)); }
std::string Method(const std::string& v) { return Guard().Check("method", v, IsMethod(v)); }

// Negative durations (a clock stepped backwards) would corrupt a histogram's sum.
double NonNegative(double seconds) { return seconds > 0 ? seconds : 0; }

}  // namespace

absl::StatusOr<std::unique_ptr<Metrics>> Metrics::Create(const std::string& listen,
                                                         bool dcgm_gauges) {
  KBENCH_ASSIGN_OR_RETURN(std::unique_ptr<PrometheusMetrics> m,
                          PrometheusMetrics::Create(
                              listen, [] { return LoadNvml(); }, dcgm_gauges));
  return std::unique_ptr<Metrics>(std::move(m));
}

PrometheusMetrics::PrometheusMetrics(GpuCollector::SourceFactory gpu_source)
    : registry_(std::make_shared<prometheus::Registry>()),
      gpus_(std::make_shared<GpuCollector>(std::move(gpu_source))),
      process_(std::make_shared<ProcessCollector>()) {
  using prometheus::BuildCounter;
  using prometheus::BuildGauge;
  using prometheus::BuildHistogram;
  jobs_submitted_ = &BuildCounter()
                         .Name("kbench_jobs_submitted_total")
                         .Help("Jobs accepted by SubmitJob, by kind and requested device.")
                         .Register(*registry_);
  jobs_finished_ = &BuildCounter()
                        .Name("kbench_jobs_finished_total")
                        .Help(
                            "Jobs that reached a terminal state, by kind, device and state "
                            "(succeeded, failed, cancelled).")
                        .Register(*registry_);
  owner_jobs_submitted_ = &BuildCounter()
                               .Name("kbench_owner_jobs_submitted_total")
                               .Help(
                                   "Jobs accepted by SubmitJob or SubmitSweep, by owner; owners "
                                   "not listed in the auth file are counted as \"other\".")
                               .Register(*registry_);
  queue_depth_ = &BuildGauge()
                      .Name("kbench_queue_depth")
                      .Help("Jobs queued (not yet running) per device.")
                      .Register(*registry_);
  queue_wait_ = &BuildHistogram()
                     .Name("kbench_queue_wait_seconds")
                     .Help("Time from submission to the start of the run, in seconds.")
                     .Register(*registry_);
  run_duration_ = &BuildHistogram()
                       .Name("kbench_job_run_duration_seconds")
                       .Help("Wall time of a job's run on its executor, in seconds.")
                       .Register(*registry_);
  executor_restarts_ = &BuildCounter()
                            .Name("kbench_executor_restarts_total")
                            .Help("Executor processes restarted, by device and cause.")
                            .Register(*registry_);
  rpc_requests_ = &BuildCounter()
                       .Name("kbench_rpc_requests_total")
                       .Help("gRPC requests handled, by method and status code.")
                       .Register(*registry_);
  rpc_duration_ = &BuildHistogram()
                       .Name("kbench_rpc_duration_seconds")
                       .Help(
                           "gRPC request latency (whole stream for streaming RPCs), in "
                           "seconds.")
                       .Register(*registry_);
  artifact_bytes_ = &BuildGauge()
                         .Name("kbench_artifact_store_bytes")
                         .Help("Bytes held by the artifact store.")
                         .Register(*registry_)
                         .Add({});
  store_writable_ = &BuildGauge()
                         .Name("kbench_store_writable")
                         .Help(
                             "1 while the job store takes writes; 0 while it refuses them (a "
                             "full disk, a database away): submits are refused, queued jobs wait.")
                         .Register(*registry_)
                         .Add({});
  store_writable_->Set(1);
  store_held_writes_ = &BuildGauge()
                            .Name("kbench_store_held_writes")
                            .Help(
                                "Terminal states and artifacts the store refused, held on this "
                                "host until it takes them.")
                            .Register(*registry_)
                            .Add({});
  store_write_failures_ =
      &BuildCounter()
           .Name("kbench_store_write_failures_total")
           .Help(
               "Writes the job store refused after its retries, by reason (disk_full: SQLite's "
               "disk; unavailable: the database or the data directory away); each one held "
               "something in memory or refused a submit.")
           .Register(*registry_);
  for (const char* reason : {"disk_full", "unavailable"})
    store_write_failures_->Add({{"reason", reason}});
  fleet_node_alive_ = &BuildGauge()
                           .Name("kbench_fleet_node_alive")
                           .Help(
                               "1 for each fleet node whose last heartbeat is within the lease "
                               "(--node-lease), 0 for a node that is lost, as this node read them.")
                           .Register(*registry_);
  fleet_heartbeat_age_ =
      &BuildGauge()
           .Name("kbench_fleet_heartbeat_age_seconds")
           .Help("Seconds since each fleet node's last heartbeat, by this node's clock.")
           .Register(*registry_);
  lease_takeovers_ = &BuildCounter()
                          .Name("kbench_fleet_lease_takeovers_total")
                          .Help(
                              "Jobs this node re-queued (or ended FAILED past their attempts) "
                              "because the node holding them let its lease expire.")
                          .Register(*registry_)
                          .Add({});
  owner_gpu_seconds_ = &BuildCounter()
                            .Name("kbench_owner_gpu_seconds_total")
                            .Help(
                                "GPU seconds (device wall time) used by each owner's jobs; owners "
                                "not listed in the auth file are counted as \"other\".")
                            .Register(*registry_);
  auth_failures_ = &BuildCounter()
                        .Name("kbench_auth_failures_total")
                        .Help("Calls refused as unauthenticated, by reason.")
                        .Register(*registry_);
  // Every reason's series from the start, at 0: the first failure is an increase.
  for (const std::string& reason : AuthFailureReasons()) auth_failures_->Add({{"reason", reason}});
  auth_failures_->Add({{"reason", "other"}});
  device_state_ = &BuildGauge()
                       .Name("kbench_device_state")
                       .Help(
                           "1 for the state each device is in (starting, ready, restarting, "
                           "failed: as kbctl devices shows it), 0 for the others.")
                       .Register(*registry_);
  jobs_running_ = &BuildGauge()
                       .Name("kbench_jobs_running")
                       .Help("Jobs running now per device (a device runs one at a time).")
                       .Register(*registry_);
  BuildGauge()
      .Name("kbench_build_info")
      .Help("Always 1; labels say which kbenchd build is running.")
      .Register(*registry_)
      .Add({{"version", KBENCH_VERSION},
            {"revision", KBENCH_GIT_REVISION},
            {"compiler", absl::StrCat("gcc ", __VERSION__)}})
      .Set(1);
}

PrometheusMetrics::~PrometheusMetrics() = default;

absl::StatusOr<std::unique_ptr<PrometheusMetrics>> PrometheusMetrics::Create(
    const std::string& listen, GpuCollector::SourceFactory gpu_source, bool dcgm_gauges) {
  std::unique_ptr<PrometheusMetrics> m(new PrometheusMetrics(std::move(gpu_source)));
  if (!dcgm_gauges) m->gpus_->OmitDcgmNames();
  if (listen.empty()) return m;
  KBENCH_ASSIGN_OR_RETURN(MetricsEndpoint endpoint,
                          StartMetricsEndpoint(listen, {m->registry_, m->gpus_, m->process_}));
  m->exposer_ = std::move(endpoint.exposer);
  m->bound_address_ = std::move(endpoint.bound_address);
  return m;
}

void PrometheusMetrics::JobSubmitted(JobKind kind, const std::string& device) {
  const std::string k = Kind(kind);
  const std::string d = Device(device);
  jobs_submitted_->Add({{"kind", k}, {"device", d}}).Increment();
  // The finished series exist from the first submit, at 0, so that a failure ratio or an
  // increase() sees the first failure rather than a series that appears already at 1.
  for (const std::string& state : FinalStates()) {
    jobs_finished_->Add({{"kind", k}, {"device", d}, {"state", state}});
  }
}

void PrometheusMetrics::JobFinished(JobKind kind, const std::string& device,
                                    const std::string& state) {
  jobs_finished_->Add({{"kind", Kind(kind)}, {"device", Device(device)}, {"state", State(state)}})
      .Increment();
}

void PrometheusMetrics::SetQueueDepth(const std::string& device, int64_t depth) {
  const std::string d = Device(device);
  queue_depth_->Add({{"device", d}}).Set(static_cast<double>(depth));
  // The scheduler sets every device's depth at start: its restart series exist from then, at 0,
  // so that increase() and the crash-loop alert see the first restart (a series that appears
  // at 1 has no increase).
  for (ExecutorFailure cause : kExecutorFailures)
    executor_restarts_->Add({{"device", d}, {"cause", Cause(cause)}});
}

void PrometheusMetrics::ObserveQueueWait(const std::string& device, double seconds) {
  queue_wait_->Add({{"device", Device(device)}}, QueueWaitBuckets()).Observe(NonNegative(seconds));
}

void PrometheusMetrics::ObserveRunDuration(JobKind kind, const std::string& device,
                                           double seconds) {
  run_duration_->Add({{"kind", Kind(kind)}, {"device", Device(device)}}, RunDurationBuckets())
      .Observe(NonNegative(seconds));
}

void PrometheusMetrics::ExecutorRestarted(const std::string& device, ExecutorFailure cause) {
  executor_restarts_->Add({{"device", Device(device)}, {"cause", Cause(cause)}}).Increment();
}

void PrometheusMetrics::ObserveRpc(const std::string& method, const std::string& code,
                                   double seconds) {
  const std::string m = Method(method);
  rpc_requests_->Add({{"method", m}, {"code", Code(code)}}).Increment();
  rpc_duration_->Add({{"method", m}}, RpcDurationBuckets()).Observe(NonNegative(seconds));
}

void PrometheusMetrics::SetArtifactBytes(int64_t bytes) {
  artifact_bytes_->Set(static_cast<double>(bytes));
}

void PrometheusMetrics::SetStoreState(bool writable, int64_t held_writes) {
  store_writable_->Set(writable ? 1 : 0);
  store_held_writes_->Set(static_cast<double>(held_writes));
}

void PrometheusMetrics::StoreWriteRefused(const std::string& reason) {
  const bool known = reason == "disk_full" || reason == "unavailable";
  store_write_failures_->Add({{"reason", known ? reason : "unavailable"}}).Increment();
}

void PrometheusMetrics::SetFleetNode(const std::string& node, bool alive,
                                     double heartbeat_age_seconds) {
  fleet_node_alive_->Add({{"node", node}}).Set(alive ? 1 : 0);
  fleet_heartbeat_age_->Add({{"node", node}}).Set(heartbeat_age_seconds);
}

void PrometheusMetrics::LeasesTakenOver(int64_t jobs) {
  if (jobs > 0) lease_takeovers_->Increment(static_cast<double>(jobs));
}

void PrometheusMetrics::SetDeviceState(const std::string& device, const std::string& state) {
  const std::string d = Device(device);
  bool known = false;
  // One-hot over every state, so that a dashboard sees the states a device left, at 0.
  for (const std::string& s : DeviceStates()) {
    device_state_->Add({{"device", d}, {"state", s}}).Set(s == state ? 1 : 0);
    known = known || s == state;
  }
  if (!known) Guard().Check("state", state, false);
  jobs_running_->Add({{"device", d}});  // the device's running series exists from its start
}

void PrometheusMetrics::SetJobRunning(const std::string& device, bool running) {
  jobs_running_->Add({{"device", Device(device)}}).Set(running ? 1 : 0);
}

void PrometheusMetrics::AddGpu(const std::string& device_id, const std::string& uuid,
                               const std::string& model_name, int ordinal) {
  absl::Status added = gpus_->AddGpu(device_id, uuid, model_name, ordinal);
  if (added.ok()) {
    logging::Log(logging::Level::kInfo, "metrics: GPU gauges enabled",
                 {{"device", device_id}, {"uuid", uuid}, {"model", model_name}});
  } else {
    // Not fatal: the daemon benchmarks without its GPU gauges.
    logging::Log(logging::Level::kWarn, "metrics: no GPU gauges for device",
                 {{"device", device_id}, {"reason", std::string(added.message())}});
  }
}

std::string PrometheusMetrics::ScrapeText() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (prometheus::MetricFamily& f : gpus_->Collect()) families.push_back(std::move(f));
  for (prometheus::MetricFamily& f : process_->Collect()) families.push_back(std::move(f));
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace kbench::metrics
