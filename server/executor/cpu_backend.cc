// The cpu device: runs the catalogue's host variants and times them with the host's
// monotonic clock. Always present; on a machine without a GPU it is the whole service.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "common/stopping_defaults.h"
#include "kernels/catalogue.h"
#include "kernels/random.h"
#include "server/executor/backend.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/statistics.h"

namespace kbench::executor {
namespace {

using Clock = std::chrono::steady_clock;

// A quiet NaN with a recognisable payload: an output element still holding it was never written.
constexpr uint32_t kPoisonBits = 0x7FC0DEADu;
// Hot samples batch enough runs to last this long, so clock resolution and call overhead vanish.
constexpr double kHotSampleTarget = 1e-3;
// Warm-up runs at least this long (and three runs): page faults, frequency ramp-up and caches
// settle. A job that asks for less measured time than this warms up for its own min_time
// instead: a 1 ms measurement behind a fixed 50 ms warm-up spent 95% of a tiny job's time
// outside sampling (issue 12, item 11; docs/benchmarks.md, "Per-job overhead").
constexpr double kMaxWarmupSeconds = 0.05;
// Cold samples overwrite this many bytes first: larger than the last-level cache of the hosts
// we run on.
constexpr size_t kCacheFlushBytes = 256u << 20;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string CpuModelName() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos)
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "host cpu";
}

class CpuPreparedVariant : public PreparedVariant {
 public:
  CpuPreparedVariant(const kernels::Problem& problem, const kernels::Operation& op, uint64_t seed,
                     v1::MeasureMode mode, const BufferPlacement& placement, double warmup_seconds,
                     std::vector<char>* flush)
      : problem_(problem), mode_(mode), warmup_seconds_(warmup_seconds), flush_(flush) {
    run_ = op.host_runs.at(problem.variant);
    pointwise_ = op.pointwise;
    const kernels::Layout layout = op.layout(problem);
    input_scale_ = static_cast<float>(layout.input_scale);
    Allocate(layout, placement);
    FillInputs(seed);
  }

  absl::Status RegenerateInputs(uint64_t seed) override {
    FillInputs(seed);
    return absl::OkStatus();
  }

  absl::StatusOr<kernels::HostTensors> Inputs() override {
    kernels::HostTensors out;
    for (const std::span<float> b : inputs_) out.emplace_back(b.begin(), b.end());
    return out;
  }

  absl::StatusOr<CheckedOutput> RunChecked() override {
    PoisonOutputs();
    run_(problem_, input_ptrs_, output_ptrs_);
    return ReadOutputs();
  }

  absl::StatusOr<TimedCheck> TakeCheckedSample() override {
    PoisonOutputs();
    TimedCheck check;
    KBENCH_ASSIGN_OR_RETURN(check.sample, TakeSample());
    check.output = ReadOutputs();
    return check;
  }

  absl::Status SetSealedPositions(const std::vector<std::vector<int64_t>>& positions) override {
    positions_ = positions;
    return absl::OkStatus();
  }

  absl::StatusOr<SealedSample> TakeSealedSample(const SampleSeal& seal) override {
    FillInputs(seal.input_seed);
    FillPattern(seal.pattern_seed);
    SealedSample sealed;
    KBENCH_ASSIGN_OR_RETURN(sealed.sample, TakeSample());
    ReadSealedOutputs(seal.pattern_seed, &sealed);
    sealed.inputs_changed = InputsChangedFrom(seal.input_seed);
    return sealed;
  }

  absl::StatusOr<std::function<kernels::HostTensors()>> SealedInputs(
      const SampleSeal& seal) override {
    FillInputs(seal.input_seed);
    KBENCH_ASSIGN_OR_RETURN(kernels::HostTensors inputs, Inputs());
    if (pointwise_ && !positions_.empty()) {
      for (std::vector<double>& in : inputs) {
        std::vector<double> at;
        for (const int64_t p : positions_[0]) at.push_back(in[static_cast<size_t>(p)]);
        in = std::move(at);
      }
    }
    return [inputs = std::move(inputs)] { return inputs; };
  }

  absl::Status Warmup() override {
    const Clock::time_point start = Clock::now();
    int runs = 0;
    double one = 0;
    while (runs < 3 || Seconds(Clock::now() - start) < warmup_seconds_) {
      const Clock::time_point t0 = Clock::now();
      run_(problem_, input_ptrs_, output_ptrs_);
      one = Seconds(Clock::now() - t0);
      ++runs;
      if (Seconds(Clock::now() - start) > 2.0) break;  // a slow problem warms up in fewer runs
    }
    launches_ = 1;
    if (mode_ == v1::MEASURE_MODE_HOT && one > 0 && one < kHotSampleTarget) {
      launches_ = static_cast<int64_t>(kHotSampleTarget / one) + 1;
    }
    return absl::OkStatus();
  }

  absl::Status RunOnce() override {
    run_(problem_, input_ptrs_, output_ptrs_);
    return absl::OkStatus();
  }

  absl::StatusOr<measure::Sample> TakeSample() override {
    if (mode_ == v1::MEASURE_MODE_COLD) {
      // Outside the timed region: evict the problem's data from every cache level.
      std::memset(flush_->data(), static_cast<int>(++flush_value_), flush_->size());
    }
    const Clock::time_point t0 = Clock::now();
    for (int64_t i = 0; i < launches_; ++i) run_(problem_, input_ptrs_, output_ptrs_);
    measure::Sample s;
    s.seconds = Seconds(Clock::now() - t0);
    s.launches = launches_;
    return s;
  }

 private:
  // One arena for all tensors, inputs then outputs, as the CUDA executor lays them out: each
  // on a 256-byte boundary with the placement's gap after it.
  void Allocate(const kernels::Layout& layout, const BufferPlacement& placement) {
    constexpr int64_t kAlignFloats = 256 / sizeof(float);
    const int64_t gap = (placement.tensor_gap_bytes + 3) / 4;
    const auto extent = [&](const kernels::TensorSpec& t) {
      return (t.elements + gap + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
    };
    int64_t total = 0;
    for (const auto* ts : {&layout.inputs, &layout.outputs}) {
      for (const kernels::TensorSpec& t : *ts) total += extent(t);
    }
    arena_.assign(total + kAlignFloats, 0.0f);  // + the slack to start on the boundary
    void* start = arena_.data();
    size_t space = arena_.size() * sizeof(float);
    float* p = static_cast<float*>(std::align(256, total * sizeof(float), start, space));
    for (const kernels::TensorSpec& t : layout.inputs) {
      inputs_.emplace_back(p, t.elements);
      input_ptrs_.push_back(p);
      p += extent(t);
    }
    for (const kernels::TensorSpec& t : layout.outputs) {
      outputs_.emplace_back(p, t.elements);
      output_ptrs_.push_back(p);
      p += extent(t);
    }
  }

  void FillInputs(uint64_t seed) {
    for (size_t t = 0; t < inputs_.size(); ++t) {
      const std::span<float> buf = inputs_[t];
      for (size_t i = 0; i < buf.size(); ++i) {
        buf[i] = kernels::UniformAt(seed, static_cast<uint32_t>(t), i, input_scale_);
      }
    }
  }

  void FillPattern(uint64_t pattern_seed) {
    for (size_t o = 0; o < outputs_.size(); ++o) {
      const std::span<float> b = outputs_[o];
      for (size_t i = 0; i < b.size(); ++i) {
        b[i] = SealedPatternAt(pattern_seed, static_cast<uint32_t>(o), i);
      }
    }
  }

  void ReadSealedOutputs(uint64_t pattern_seed, SealedSample* sealed) const {
    for (size_t o = 0; o < outputs_.size() && o < positions_.size(); ++o) {
      std::vector<double>& at = sealed->outputs.emplace_back();
      for (const int64_t p : positions_[o]) {
        const float v = outputs_[o][static_cast<size_t>(p)];
        at.push_back(v);
        sealed->unwritten += v == SealedPatternAt(pattern_seed, static_cast<uint32_t>(o), p);
      }
    }
  }

  int64_t InputsChangedFrom(uint64_t seed) const {
    int64_t changed = 0;
    for (size_t t = 0; t < inputs_.size(); ++t) {
      const std::span<float> buf = inputs_[t];
      for (size_t i = 0; i < buf.size(); ++i) {
        changed += buf[i] != kernels::UniformAt(seed, static_cast<uint32_t>(t), i, input_scale_);
      }
    }
    return changed;
  }

  void PoisonOutputs() {
    float poison;
    std::memcpy(&poison, &kPoisonBits, sizeof(poison));
    for (const std::span<float> b : outputs_) std::fill(b.begin(), b.end(), poison);
  }

  CheckedOutput ReadOutputs() const {
    CheckedOutput out;
    for (const std::span<float> b : outputs_) {
      for (float v : b) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        out.unwritten += bits == kPoisonBits;
      }
      out.outputs.emplace_back(b.begin(), b.end());
    }
    return out;
  }

  kernels::Problem problem_;
  v1::MeasureMode mode_;
  double warmup_seconds_;
  std::vector<char>* flush_;
  float input_scale_ = 1;
  unsigned flush_value_ = 0;
  kernels::HostRunFn run_;
  std::vector<float> arena_;
  std::vector<std::span<float>> inputs_, outputs_;
  std::vector<const float*> input_ptrs_;
  std::vector<float*> output_ptrs_;
  std::vector<std::vector<int64_t>> positions_;
  bool pointwise_ = false;
  int64_t launches_ = 1;
};

class CpuRunner : public DeviceRunner {
 public:
  absl::Status Initialize() {
    info_.set_id("cpu");
    info_.set_kind(v1::DEVICE_KIND_CPU);
    info_.set_name(CpuModelName());
    info_.set_cpu_threads(static_cast<int32_t>(std::thread::hardware_concurrency()));
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) info_.set_memory_bytes(static_cast<int64_t>(pages) * page);
    info_.set_state(v1::DEVICE_STATE_READY);
    info_.set_copy_bandwidth_bytes_per_second(MeasureCopyBandwidth());
    return absl::OkStatus();
  }

  const v1::DeviceInfo& info() const override { return info_; }
  v1::MeasureMode default_mode() const override { return v1::MEASURE_MODE_HOT; }
  double PeakFlops(kernels::DType) const override { return 0; }

  absl::StatusOr<std::unique_ptr<PreparedVariant>> Prepare(
      const kernels::Problem& problem, uint64_t seed, v1::MeasureMode mode,
      const BufferPlacement& placement) override {
    const kernels::Operation* op = kernels::FindOperation(problem.op);
    if (op == nullptr || !op->host_runs.contains(problem.variant)) {
      return absl::FailedPreconditionError(absl::StrCat("variants: ", problem.op, "/",
                                                        problem.variant,
                                                        " has no host implementation; the cpu "
                                                        "device runs host variants only"));
    }
    if (mode == v1::MEASURE_MODE_GRAPH) {
      return absl::InvalidArgumentError("mode: graph mode needs a CUDA device");
    }
    if (mode == v1::MEASURE_MODE_COLD && flush_.empty()) flush_.resize(kCacheFlushBytes);
    return std::make_unique<CpuPreparedVariant>(problem, *op, seed, mode, placement,
                                                warmup_seconds_, &flush_);
  }

  // The warm-up of the next job's variants: kMaxWarmupSeconds, or the job's min_time when less.
  void SetWarmupFor(const v1::StoppingCriteria& stopping) {
    const double min_time =
        stopping.min_time_seconds() > 0 ? stopping.min_time_seconds() : kDefaultMinTimeSeconds;
    warmup_seconds_ = std::min(kMaxWarmupSeconds, min_time);
  }

 private:
  // Bytes read + written per second by memcpy of a buffer far larger than the caches; the
  // median of five copies.
  static double MeasureCopyBandwidth() {
    const size_t bytes = 64u << 20;
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    std::vector<double> times;
    for (int i = 0; i < 6; ++i) {
      const Clock::time_point t0 = Clock::now();
      std::memcpy(dst.data(), src.data(), bytes);
      times.push_back(Seconds(Clock::now() - t0));
      src[i] = static_cast<char>(dst[bytes - 1 - i]);  // keep the copies observable
    }
    times.erase(times.begin());  // the first copy faults the pages in
    const double median = measure::ComputeStatistics(times).median;
    return median > 0 ? 2.0 * static_cast<double>(bytes) / median : 0;
  }

  v1::DeviceInfo info_;
  double warmup_seconds_ = kMaxWarmupSeconds;
  std::vector<char> flush_;
};

class CpuBackend : public DeviceBackend {
 public:
  absl::StatusOr<v1::DeviceInfo> Initialize() override {
    KBENCH_RETURN_IF_ERROR(runner_.Initialize());
    return runner_.info();
  }

  absl::StatusOr<JobRun> Run(const JobContext& context) override {
    if (context.job->spec().kind() == v1::JOB_KIND_PROFILE) {
      return absl::FailedPreconditionError(
          "kind: profile jobs need a CUDA device (CUPTI); the cpu device runs benchmarks only");
    }
    runner_.SetWarmupFor(context.job->spec().stopping());
    return RunBenchmarkJob(runner_, context);
  }

 private:
  CpuRunner runner_;
};

}  // namespace

std::unique_ptr<DeviceBackend> MakeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace kbench::executor
