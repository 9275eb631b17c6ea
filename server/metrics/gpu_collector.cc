// Per-GPU gauges: one NVML reading per GPU per scrape, turned into dcgm-exporter-shaped series.
#include "server/metrics/gpu_collector.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "prometheus/metric_type.h"

namespace kbench::metrics {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

// The throttle (clocks event) reasons, one 0/1 series each: PromQL has no bit operations, so a
// bit mask alone (DCGM_FI_DEV_CLOCK_THROTTLE_REASONS) cannot drive an alert on one reason.
const auto& kReasons = nvml::kThrottleReasons;

// One gauge family: its name, help, type and how to read its value from a sample.
struct GaugeDef {
  const char* name;
  const char* help;
  MetricType type;
  std::optional<double> (*value)(const GpuSample&);
};

template <typename T>
std::optional<double> AsDouble(const std::optional<T>& v) {
  if (!v.has_value()) return std::nullopt;
  return static_cast<double>(*v);
}

std::optional<double> MiB(const std::optional<uint64_t>& v) {
  if (!v.has_value()) return std::nullopt;
  return static_cast<double>(*v) / kBytesPerMiB;
}

// Names, units and types as dcgm-exporter's default counters (etc/default-counters.csv).
const GaugeDef kGauges[] = {
    {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", MetricType::Gauge,
     [](const GpuSample& s) { return s.gpu_utilization_percent; }},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", MetricType::Gauge,
     [](const GpuSample& s) { return s.memory_copy_utilization_percent; }},
    {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", MetricType::Gauge,
     [](const GpuSample& s) { return MiB(s.memory_used_bytes); }},
    {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", MetricType::Gauge,
     [](const GpuSample& s) { return MiB(s.memory_free_bytes); }},
    {"DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB).", MetricType::Gauge,
     [](const GpuSample& s) { return MiB(s.memory_total_bytes); }},
    {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", MetricType::Gauge,
     [](const GpuSample& s) { return s.sm_clock_mhz; }},
    {"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", MetricType::Gauge,
     [](const GpuSample& s) { return s.memory_clock_mhz; }},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", MetricType::Gauge,
     [](const GpuSample& s) { return s.temperature_celsius; }},
    {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", MetricType::Gauge,
     [](const GpuSample& s) { return s.power_watts; }},
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ).",
     MetricType::Counter, [](const GpuSample& s) { return AsDouble(s.energy_millijoules); }},
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
     "Current clock throttle reasons (bit mask of NVML's nvmlClocksEventReason*).",
     MetricType::Gauge, [](const GpuSample& s) { return AsDouble(s.throttle_reasons); }},
    // kbench's own, in base units as Prometheus asks.
    {"kbench_gpu_memory_used_bytes", "GPU memory used, in bytes (NVML).", MetricType::Gauge,
     [](const GpuSample& s) { return AsDouble(s.memory_used_bytes); }},
    {"kbench_gpu_memory_total_bytes", "GPU memory total, in bytes (NVML).", MetricType::Gauge,
     [](const GpuSample& s) { return AsDouble(s.memory_total_bytes); }},
};

ClientMetric Point(std::vector<ClientMetric::Label> labels, MetricType type, double value) {
  ClientMetric m;
  m.label = std::move(labels);
  if (type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  return m;
}

}  // namespace

GpuCollector::GpuCollector(SourceFactory factory) : factory_(std::move(factory)) {}

absl::Status GpuCollector::AddGpu(const std::string& device_id, const std::string& uuid,
                                  const std::string& model_name, int ordinal) {
  absl::MutexLock lock(&mu_);
  if (!source_tried_) {
    source_tried_ = true;
    absl::StatusOr<std::unique_ptr<GpuSource>> source = factory_();
    if (source.ok()) {
      source_ = std::move(*source);
    } else {
      source_status_ = source.status();
    }
  }
  if (source_ == nullptr) return source_status_;
  absl::StatusOr<GpuIdentity> identity = source_->Find(uuid, ordinal);
  if (!identity.ok()) {
    return absl::Status(
        identity.status().code(),
        absl::StrCat("GPU gauges for device \"", device_id, "\": ", identity.status().message()));
  }
  for (const Gpu& gpu : gpus_) {
    if (gpu.index == identity->index && gpu.device_id != device_id) {
      return absl::AlreadyExistsError(absl::StrCat(
          "GPU ", identity->index, " (", identity->uuid, ") already has gauges as device \"",
          gpu.device_id, "\", not adding \"", device_id, "\""));
    }
  }
  Gpu gpu;
  gpu.device_id = device_id;
  gpu.index = identity->index;
  // Label names sorted, as the exposition format's readers expect them stable.
  gpu.labels = {
      {"UUID", identity->uuid.empty() ? uuid : identity->uuid},
      {"gpu", absl::StrCat(identity->index)},
      {"kbench_device", device_id},
      {"modelName", model_name.empty() ? identity->name : model_name},
  };
  for (Gpu& existing : gpus_) {
    if (existing.device_id == device_id) {
      existing = std::move(gpu);
      return absl::OkStatus();
    }
  }
  gpus_.push_back(std::move(gpu));
  return absl::OkStatus();
}

std::vector<MetricFamily> GpuCollector::Collect() const {
  std::shared_ptr<GpuSource> source;
  std::vector<Gpu> gpus;
  {
    absl::MutexLock lock(&mu_);
    source = source_;
    gpus = gpus_;
  }
  std::vector<MetricFamily> families;
  if (source == nullptr || gpus.empty()) return families;

  std::vector<GpuSample> samples;
  samples.reserve(gpus.size());
  for (const Gpu& gpu : gpus) samples.push_back(source->Read(gpu.index));

  for (const GaugeDef& def : kGauges) {
    if (!dcgm_names_ && std::string_view(def.name).rfind("DCGM_", 0) == 0) continue;
    MetricFamily family;
    family.name = def.name;
    family.help = def.help;
    family.type = def.type;
    for (size_t i = 0; i < gpus.size(); ++i) {
      std::optional<double> v = def.value(samples[i]);
      if (v.has_value()) family.metric.push_back(Point(gpus[i].labels, def.type, *v));
    }
    if (!family.metric.empty()) families.push_back(std::move(family));
  }

  MetricFamily reasons;
  reasons.name = "kbench_gpu_throttle_reason_active";
  reasons.help = "1 while NVML reports this clocks event (throttle) reason for the GPU, else 0.";
  reasons.type = MetricType::Gauge;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!samples[i].throttle_reasons.has_value()) continue;
    for (const nvml::ThrottleReason& r : kReasons) {
      std::vector<ClientMetric::Label> labels = gpus[i].labels;
      labels.push_back({"reason", r.name});
      reasons.metric.push_back(Point(std::move(labels), MetricType::Gauge,
                                     (*samples[i].throttle_reasons & r.bit) != 0 ? 1.0 : 0.0));
    }
  }
  if (!reasons.metric.empty()) families.push_back(std::move(reasons));
  return families;
}

}  // namespace kbench::metrics
