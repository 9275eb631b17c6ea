// A problem on a CUDA device: buffers, seeded inputs, the checked run, warm-up and samples.
#include "server/executor/cuda/prepared_variant.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "kernels/random.h"
#include "server/executor/cuda/cuda_runner.h"
#include "server/executor/cuda/tensor_init.h"

namespace kbench::executor::cuda {
namespace {

constexpr int64_t kAlignment = 256;
// Warm-up: at least this much device time in launches (lazy module loading, clocks ramping up
// from idle, TLBs), but give up after this much wall time for very slow kernels.
constexpr double kWarmupDeviceSeconds = 0.1;
constexpr double kWarmupWallSeconds = 2.0;

int64_t AlignUp(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string GiB(size_t bytes) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(bytes) / (1u << 30));
}

}  // namespace

int64_t BufferSetsForRotation(int64_t set_bytes, int64_t l2_bytes) {
  if (set_bytes <= 0) return 1;
  if (set_bytes >= 2 * l2_bytes) return 1;
  const int64_t others = (2 * l2_bytes + set_bytes - 1) / set_bytes;
  return std::min(CudaPreparedVariant::kMaxBufferSets, 1 + others);
}

CudaPreparedVariant::CudaPreparedVariant(CudaRunner* runner, const kernels::Problem& problem,
                                         VariantLauncher launcher, v1::MeasureMode mode)
    : runner_(runner),
      problem_(problem),
      launcher_(std::move(launcher)),
      mode_(mode),
      name_(absl::StrCat(problem.op, "/", problem.variant)) {}

CudaPreparedVariant::~CudaPreparedVariant() {
  graph_.reset();
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (sealed_ != nullptr) {
    // It holds read-back outputs and inputs too: scrubbed like the slab (below).
    if (cudaMemsetAsync(sealed_, 0, sealed_bytes_, runner_->prep_stream()) == cudaSuccess) {
      cudaStreamSynchronize(runner_->prep_stream());
    }
    cudaFree(sealed_);
  }
  if (slab_ != nullptr) {
    // CUDA does not clear memory it hands out again: the next job, perhaps another owner's,
    // could read this one's inputs and outputs (issue 23, item 4). Scrubbed before it is freed;
    // after a sticky error the calls fail and the process, with its memory, goes.
    if (cudaMemsetAsync(slab_, 0, static_cast<size_t>(slab_bytes_), runner_->prep_stream()) ==
        cudaSuccess) {
      cudaStreamSynchronize(runner_->prep_stream());
    }
    cudaFree(slab_);
  }
}

absl::Status CudaPreparedVariant::Where(const absl::Status& s, const char* what) const {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(name_, ": ", what, ": ", s.message()));
}

absl::StatusOr<std::unique_ptr<CudaPreparedVariant>> CudaPreparedVariant::Create(
    CudaRunner* runner, const kernels::Problem& problem, const kernels::cuda::CudaVariant& variant,
    uint64_t seed, v1::MeasureMode mode, const BufferPlacement& placement) {
  return Create(runner, problem, VariantLauncher{variant.launch, variant.needs_cublas, nullptr},
                seed, mode, placement);
}

absl::StatusOr<std::unique_ptr<CudaPreparedVariant>> CudaPreparedVariant::Create(
    CudaRunner* runner, const kernels::Problem& problem, VariantLauncher launcher, uint64_t seed,
    v1::MeasureMode mode, const BufferPlacement& placement) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("kernel: unknown operation " + problem.op);
  const bool needs_cublas = launcher.needs_cublas;
  std::unique_ptr<CudaPreparedVariant> pv(
      new CudaPreparedVariant(runner, problem, std::move(launcher), mode));
  pv->layout_ = op->layout(problem);
  const int64_t element_bytes = static_cast<int64_t>(kernels::StorageBytes(problem.dtype));
  // Each tensor's extent: its bytes and the placement's gap, on the alignment.
  const auto extent = [&](const kernels::TensorSpec& t) {
    return AlignUp(t.elements * element_bytes + placement.tensor_gap_bytes);
  };
  int64_t set_bytes = 0;
  for (const auto* tensors : {&pv->layout_.inputs, &pv->layout_.outputs}) {
    for (const kernels::TensorSpec& t : *tensors) set_bytes += extent(t);
  }
  pv->set_bytes_ = set_bytes;
  const int64_t sets = mode == v1::MEASURE_MODE_GRAPH
                           ? BufferSetsForRotation(set_bytes, runner->prop().l2CacheSize)
                           : 1;
  const int64_t workspace = AlignUp(pv->layout_.workspace_bytes);
  const int64_t total = sets * set_bytes + workspace;
  pv->slab_bytes_ = total;

  if (const cudaError_t err = cudaMalloc(&pv->slab_, static_cast<size_t>(total));
      err != cudaSuccess) {
    cudaGetLastError();  // an allocation failure is not sticky; clear it
    pv->slab_ = nullptr;
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    const std::string what = absl::StrFormat(
        "%s: cannot allocate %d bytes of device memory (%d tensors%s%s): %s; %s free of %s",
        pv->name_, total, pv->layout_.inputs.size() + pv->layout_.outputs.size(),
        sets > 1 ? absl::StrCat(" x ", sets, " rotated buffer sets") : "",
        workspace > 0 ? absl::StrCat(" + ", workspace, " bytes of workspace") : "",
        cudaGetErrorName(err), GiB(free_bytes), GiB(total_bytes));
    if (err == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(what);
    return absl::InternalError(what);
  }

  char* base = static_cast<char*>(pv->slab_);
  void* workspace_ptr = workspace > 0 ? base + sets * set_bytes : nullptr;
  cudaStream_t prep = runner->prep_stream();
  void* cublas = nullptr;
  if (needs_cublas) {
    absl::StatusOr<void*> handle = runner->Cublas();
    if (!handle.ok()) return pv->Where(handle.status(), "creating the cuBLAS handle");
    cublas = *handle;
  }
  for (int64_t s = 0; s < sets; ++s) {
    kernels::cuda::LaunchArgs args;
    char* p = base + s * set_bytes;
    for (const kernels::TensorSpec& t : pv->layout_.inputs) {
      args.inputs.push_back(p);
      p += extent(t);
    }
    for (const kernels::TensorSpec& t : pv->layout_.outputs) {
      if (absl::Status st = FillPoison(p, t.elements, problem.dtype, prep); !st.ok()) {
        return pv->Where(st, "poisoning outputs");
      }
      args.outputs.push_back(p);
      p += extent(t);
    }
    args.workspace = workspace_ptr;
    args.workspace_bytes = static_cast<size_t>(pv->layout_.workspace_bytes);
    args.stream = runner->timed_stream();
    args.prop = &runner->prop();
    args.cublas = cublas;
    pv->args_.push_back(std::move(args));
    // Every set holds the same values: the seed fixes them.
    if (absl::Status st = pv->FillInputs(pv->args_.size() - 1, seed, prep); !st.ok()) {
      return pv->Where(st, "generating inputs");
    }
  }
  if (const cudaError_t err = cudaStreamSynchronize(prep); err != cudaSuccess) {
    return pv->Where(
        kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(prep)", __FILE__, __LINE__),
        "generating inputs");
  }
  if (const cudaError_t err = cudaEventCreate(&pv->start_); err != cudaSuccess) {
    return kernels::cuda::CudaStatus(err, "cudaEventCreate(&start)", __FILE__, __LINE__);
  }
  if (const cudaError_t err = cudaEventCreate(&pv->stop_); err != cudaSuccess) {
    return kernels::cuda::CudaStatus(err, "cudaEventCreate(&stop)", __FILE__, __LINE__);
  }
  return pv;
}

absl::Status CudaPreparedVariant::Launch(int64_t i) {
  return launcher_.launch(problem_, args_[static_cast<size_t>(i) % args_.size()]);
}

absl::Status CudaPreparedVariant::FillInputs(size_t set, uint64_t seed, cudaStream_t stream) {
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    KBENCH_RETURN_IF_ERROR(FillUniform(
        const_cast<void*>(args_[set].inputs[t]), layout_.inputs[t].elements, problem_.dtype, seed,
        static_cast<uint32_t>(t), static_cast<float>(layout_.input_scale), stream));
  }
  return absl::OkStatus();
}

absl::Status CudaPreparedVariant::RegenerateInputs(uint64_t seed) {
  // No launch may still read the inputs being replaced.
  if (const cudaError_t err = cudaStreamSynchronize(runner_->timed_stream()); err != cudaSuccess) {
    return Where(kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(timed)", __FILE__, __LINE__),
                 "regenerating inputs");
  }
  cudaStream_t prep = runner_->prep_stream();
  for (size_t set = 0; set < args_.size(); ++set) {
    if (absl::Status s = FillInputs(set, seed, prep); !s.ok()) {
      return Where(s, "regenerating inputs");
    }
  }
  if (const cudaError_t err = cudaStreamSynchronize(prep); err != cudaSuccess) {
    return Where(kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(prep)", __FILE__, __LINE__),
                 "regenerating inputs");
  }
  return absl::OkStatus();
}

absl::StatusOr<kernels::HostTensors> CudaPreparedVariant::Inputs() { return ReadInputs(0); }

absl::StatusOr<kernels::HostTensors> CudaPreparedVariant::ReadInputs(size_t set) {
  kernels::HostTensors out;
  std::vector<char> raw;
  const size_t element_bytes = kernels::StorageBytes(problem_.dtype);
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    const int64_t n = layout_.inputs[t].elements;
    raw.resize(static_cast<size_t>(n) * element_bytes);
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(raw.data(), args_[set].inputs[t], raw.size(),
                                                cudaMemcpyDeviceToHost, runner_->prep_stream()));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(runner_->prep_stream()));
    ConvertToDouble(raw.data(), n, problem_.dtype, &out.emplace_back());
  }
  return out;
}

absl::Status CudaPreparedVariant::PoisonOutputs(size_t set, cudaStream_t stream) {
  for (size_t o = 0; o < layout_.outputs.size(); ++o) {
    KBENCH_RETURN_IF_ERROR(
        FillPoison(args_[set].outputs[o], layout_.outputs[o].elements, problem_.dtype, stream));
  }
  return absl::OkStatus();
}

absl::StatusOr<CheckedOutput> CudaPreparedVariant::ReadOutputs(size_t set, cudaStream_t stream) {
  if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess) {
    return kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(timed)", __FILE__, __LINE__);
  }
  CheckedOutput out;
  std::vector<char> raw;
  const size_t element_bytes = kernels::StorageBytes(problem_.dtype);
  for (size_t o = 0; o < layout_.outputs.size(); ++o) {
    const int64_t n = layout_.outputs[o].elements;
    raw.resize(static_cast<size_t>(n) * element_bytes);
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(raw.data(), args_[set].outputs[o], raw.size(),
                                                cudaMemcpyDeviceToHost, stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    out.unwritten += ConvertToDouble(raw.data(), n, problem_.dtype, &out.outputs.emplace_back());
  }
  return out;
}

absl::StatusOr<CheckedOutput> CudaPreparedVariant::RunChecked() {
  cudaStream_t stream = runner_->timed_stream();
  if (absl::Status s = PoisonOutputs(0, stream); !s.ok()) return Where(s, "checked run");
  if (absl::Status s = Launch(0); !s.ok()) return Where(s, "checked run");
  absl::StatusOr<CheckedOutput> out = ReadOutputs(0, stream);
  if (!out.ok()) return Where(out.status(), "checked run");
  return out;
}

absl::StatusOr<TimedCheck> CudaPreparedVariant::TakeCheckedSample() {
  cudaStream_t stream = runner_->timed_stream();
  const size_t last = args_.size() - 1;
  // On the timed stream, so the poison lands before the sample's first launch.
  if (absl::Status s = PoisonOutputs(last, stream); !s.ok()) return Where(s, "timed check");
  TimedCheck check;
  KBENCH_ASSIGN_OR_RETURN(measure::Sample sample, TakeSample());
  check.sample = sample;
  absl::StatusOr<CheckedOutput> out = ReadOutputs(last, stream);
  if (!out.ok()) return Where(out.status(), "timed check");
  check.output = *std::move(out);
  return check;
}

void CudaPreparedVariant::DescribeMeasurement(v1::VariantResult* out) const {
  if (launcher_.describe) launcher_.describe(out);
  if (mode_ != v1::MEASURE_MODE_GRAPH) return;
  const int64_t rotation = set_bytes_ * buffer_sets();
  out->set_rotation_bytes(rotation);
  const int64_t l2 = runner_->prop().l2CacheSize;
  if (l2 > 0) out->set_rotation_over_l2(static_cast<double>(rotation) / static_cast<double>(l2));
}

absl::Status CudaPreparedVariant::Warmup() {
  cudaStream_t stream = runner_->timed_stream();
  const double wall_start = WallSeconds();
  // Single timed launches first: the first pays for lazy loading; the later ones estimate one
  // launch's device time for sizing batches.
  double device_seconds = 0;
  double one = 0;
  int64_t runs = 0;
  int64_t batch = 1;
  while (true) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(start_, stream));
    for (int64_t i = 0; i < batch; ++i) {
      if (absl::Status s = Launch(runs + i); !s.ok()) return Where(s, "warm-up");
    }
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(stop_, stream));
    if (const cudaError_t err = cudaEventSynchronize(stop_); err != cudaSuccess) {
      return Where(kernels::cuda::CudaStatus(err, "cudaEventSynchronize(stop)", __FILE__, __LINE__),
                   "warm-up");
    }
    float ms = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start_, stop_));
    const double seconds = ms * 1e-3;
    runs += batch;
    device_seconds += seconds;
    one = seconds / static_cast<double>(batch);
    const double wall = WallSeconds() - wall_start;
    if (runs >= 3 && (device_seconds >= kWarmupDeviceSeconds || wall >= kWarmupWallSeconds)) {
      break;
    }
    // After three single launches, continue in batches of ~10 ms of device time.
    if (runs >= 3 && one > 0) batch = std::clamp<int64_t>(std::llround(1e-2 / one), 1, 10000);
  }
  launch_seconds_ = one;

  const int64_t wanted =
      one > 0 ? static_cast<int64_t>(std::ceil(kBatchTargetSeconds / one)) : kMaxHotBatch;
  switch (mode_) {
    case v1::MEASURE_MODE_HOT:
      batch_ = std::clamp<int64_t>(wanted, 1, kMaxHotBatch);
      break;
    case v1::MEASURE_MODE_GRAPH: {
      // At least one launch per buffer set, so that the rotation is complete in every sample.
      batch_ = std::clamp<int64_t>(std::max(wanted, buffer_sets()), 1, kMaxGraphLaunches);
      absl::StatusOr<std::unique_ptr<GraphBatch>> g = GraphBatch::Capture(
          stream, [this](int64_t i) { return Launch(i); }, batch_);
      if (!g.ok()) return Where(g.status(), "graph capture");
      graph_ = *std::move(g);
      break;
    }
    default:
      batch_ = 1;
      break;
  }
  // One full sample of the job's mode, thrown away: the flush, the blocking kernel and the
  // graph launch are warm too.
  KBENCH_ASSIGN_OR_RETURN(const measure::Sample first, TakeSample());
  runner_->NoteWarmupClock(first.sm_clock_mhz);
  return absl::OkStatus();
}

absl::StatusOr<measure::Sample> CudaPreparedVariant::TakeSample() {
  TimedContext ctx = runner_->timed_context();
  ctx.start = start_;
  ctx.stop = stop_;
  const TimedLaunchFn launch = [this](int64_t i) { return Launch(i); };
  absl::StatusOr<measure::Sample> s;
  switch (mode_) {
    case v1::MEASURE_MODE_HOT:
      s = MeasureHot(ctx, launch, batch_);
      if (!s.ok()) return Where(s.status(), "hot sample");
      return s;
    case v1::MEASURE_MODE_GRAPH:
      if (graph_ == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(name_, ": graph sample before warm-up captured the graph"));
      }
      s = MeasureGraph(ctx, *graph_);
      if (!s.ok()) return Where(s.status(), "graph sample");
      return s;
    default:
      s = MeasureCold(ctx, launch);
      if (!s.ok()) return Where(s.status(), "cold sample");
      return s;
  }
}

absl::Status CudaPreparedVariant::RunOnce() {
  if (absl::Status s = Launch(0); !s.ok()) return Where(s, "run");
  if (const cudaError_t err = cudaStreamSynchronize(runner_->timed_stream()); err != cudaSuccess) {
    return Where(kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(timed)", __FILE__, __LINE__),
                 "run");
  }
  return absl::OkStatus();
}

absl::Status CudaPreparedVariant::LaunchBatch(int64_t launches) {
  // Queued back to back, rotating the sampled buffer sets as hot samples do, and waited for
  // once: the energy counter sees the kernel's steady draw, not the host's gaps.
  for (int64_t i = 0; i < launches; ++i) {
    if (absl::Status s = Launch(i); !s.ok()) return Where(s, "energy phase");
  }
  if (const cudaError_t err = cudaStreamSynchronize(runner_->timed_stream()); err != cudaSuccess) {
    return Where(kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(timed)", __FILE__, __LINE__),
                 "energy phase");
  }
  return absl::OkStatus();
}

TensorSets CudaPreparedVariant::InputSets(size_t t) const {
  return TensorSets{const_cast<void*>(args_[0].inputs[t]), layout_.inputs[t].elements,
                    buffer_sets(), set_bytes_, problem_.dtype};
}

TensorSets CudaPreparedVariant::OutputSets(size_t o) const {
  return TensorSets{args_[0].outputs[o], layout_.outputs[o].elements, buffer_sets(), set_bytes_,
                    problem_.dtype};
}

size_t CudaPreparedVariant::LastWrittenSet() const {
  if (mode_ != v1::MEASURE_MODE_GRAPH) return 0;
  return static_cast<size_t>((batch_ - 1) % buffer_sets());
}

absl::Status CudaPreparedVariant::SetSealedPositions(
    const std::vector<std::vector<int64_t>>& positions) {
  if (positions.size() != layout_.outputs.size()) {
    return absl::InternalError(absl::StrCat(name_, ": sealed positions for ", positions.size(),
                                            " outputs; the operation has ",
                                            layout_.outputs.size()));
  }
  const size_t element_bytes = kernels::StorageBytes(problem_.dtype);
  size_t bytes = 0;
  sealed_counts_.clear();
  positions_offsets_.clear();
  gathered_offsets_.clear();
  for (const std::vector<int64_t>& p : positions) {
    sealed_counts_.push_back(static_cast<int64_t>(p.size()));
    positions_offsets_.push_back(bytes);
    bytes += static_cast<size_t>(AlignUp(static_cast<int64_t>(p.size() * sizeof(int64_t))));
    gathered_offsets_.push_back(bytes);
    bytes += static_cast<size_t>(AlignUp(static_cast<int64_t>(p.size() * element_bytes)));
  }
  counters_offset_ = bytes;
  bytes += 2 * sizeof(unsigned long long);
  inputs_gathered_offsets_.clear();
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    bytes = static_cast<size_t>(AlignUp(static_cast<int64_t>(bytes)));
    inputs_gathered_offsets_.push_back(bytes);
    bytes += positions.front().size() * element_bytes;
  }
  sealed_bytes_ = bytes;
  if (sealed_ != nullptr) cudaFree(sealed_);
  sealed_ = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&sealed_, bytes));
  char* base = static_cast<char*>(sealed_);
  for (size_t o = 0; o < positions.size(); ++o) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpy(base + positions_offsets_[o], positions[o].data(),
                                           positions[o].size() * sizeof(int64_t),
                                           cudaMemcpyHostToDevice));
  }
  return absl::OkStatus();
}

absl::Status CudaPreparedVariant::FillSealedInputs(const SampleSeal& seal, cudaStream_t stream) {
  const float scale = static_cast<float>(layout_.input_scale);
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    KBENCH_RETURN_IF_ERROR(
        FillUniformSets(InputSets(t), seal.input_seed, static_cast<uint32_t>(t), scale, stream));
  }
  return absl::OkStatus();
}

absl::Status CudaPreparedVariant::SealBefore(const SampleSeal& seal, cudaStream_t stream) {
  KBENCH_RETURN_IF_ERROR(FillSealedInputs(seal, stream));
  for (size_t o = 0; o < layout_.outputs.size(); ++o) {
    KBENCH_RETURN_IF_ERROR(
        FillPatternSets(OutputSets(o), seal.pattern_seed, static_cast<uint32_t>(o), stream));
  }
  return absl::OkStatus();
}

absl::Status CudaPreparedVariant::ReadSealedAfter(const SampleSeal& seal, SealedSample* out) {
  cudaStream_t stream = runner_->timed_stream();
  char* base = static_cast<char*>(sealed_);
  auto* counters = reinterpret_cast<unsigned long long*>(base + counters_offset_);
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(counters, 0, 2 * sizeof(*counters), stream));
  const size_t last = LastWrittenSet();
  const uint64_t pattern_seed = kernels::DeriveSeed(seal.pattern_seed, last);
  for (size_t o = 0; o < layout_.outputs.size(); ++o) {
    KBENCH_RETURN_IF_ERROR(GatherOutputs(
        args_[last].outputs[o], problem_.dtype,
        reinterpret_cast<const int64_t*>(base + positions_offsets_[o]), sealed_counts_[o],
        pattern_seed, static_cast<uint32_t>(o), base + gathered_offsets_[o], &counters[0], stream));
  }
  const float scale = static_cast<float>(layout_.input_scale);
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    KBENCH_RETURN_IF_ERROR(CountChangedInputs(
        InputSets(t), seal.input_seed, static_cast<uint32_t>(t), scale, &counters[1], stream));
  }
  // One copy of everything read back; the region is small (4096 positions per output).
  std::vector<char> host(counters_offset_ + 2 * sizeof(unsigned long long));
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host.data(), sealed_, host.size(), cudaMemcpyDeviceToHost, stream));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  for (size_t o = 0; o < layout_.outputs.size(); ++o) {
    ConvertToDouble(host.data() + gathered_offsets_[o], sealed_counts_[o], problem_.dtype,
                    &out->outputs.emplace_back());
  }
  unsigned long long counts[2];
  std::memcpy(counts, host.data() + counters_offset_, sizeof(counts));
  out->unwritten = static_cast<int64_t>(counts[0]);
  out->inputs_changed = static_cast<int64_t>(counts[1]);
  return absl::OkStatus();
}

absl::StatusOr<SealedSample> CudaPreparedVariant::TakeSealedSample(const SampleSeal& seal) {
  if (sealed_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(name_, ": sealed sample before its positions were set"));
  }
  // On the timed stream, ahead of the flush (cold) or the blocking kernel (hot, graph): done
  // before the start event, whatever the mode.
  if (absl::Status s = SealBefore(seal, runner_->timed_stream()); !s.ok()) {
    return Where(s, "sealing a sample");
  }
  SealedSample out;
  KBENCH_ASSIGN_OR_RETURN(out.sample, TakeSample());
  if (absl::Status s = ReadSealedAfter(seal, &out); !s.ok()) {
    return Where(s, "reading a sealed sample back");
  }
  return out;
}

absl::StatusOr<std::function<kernels::HostTensors()>> CudaPreparedVariant::SealedInputs(
    const SampleSeal& seal) {
  if (const cudaError_t err = cudaStreamSynchronize(runner_->timed_stream()); err != cudaSuccess) {
    return Where(kernels::cuda::CudaStatus(err, "cudaStreamSynchronize(timed)", __FILE__, __LINE__),
                 "regenerating a sealed sample's inputs");
  }
  if (absl::Status s = FillSealedInputs(seal, runner_->prep_stream()); !s.ok()) {
    return Where(s, "regenerating a sealed sample's inputs");
  }
  // Raw bytes here; their conversion runs on the caller's worker thread.
  const size_t set = LastWrittenSet();
  const size_t element_bytes = kernels::StorageBytes(problem_.dtype);
  const kernels::Operation* op = kernels::FindOperation(problem_.op);
  std::vector<std::vector<char>> raw(layout_.inputs.size());
  cudaStream_t prep = runner_->prep_stream();
  char* base = static_cast<char*>(sealed_);
  for (size_t t = 0; t < layout_.inputs.size(); ++t) {
    if (op != nullptr && op->pointwise) {
      // Only the values at output 0's positions: all that its reference there needs.
      const int64_t count = sealed_counts_.front();
      raw[t].resize(static_cast<size_t>(count) * element_bytes);
      KBENCH_RETURN_IF_ERROR(
          GatherOutputs(args_[set].inputs[t], problem_.dtype,
                        reinterpret_cast<const int64_t*>(base + positions_offsets_.front()), count,
                        0, 0, base + inputs_gathered_offsets_[t], nullptr, prep));
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(raw[t].data(), base + inputs_gathered_offsets_[t],
                                                  raw[t].size(), cudaMemcpyDeviceToHost, prep));
      continue;
    }
    raw[t].resize(static_cast<size_t>(layout_.inputs[t].elements) * element_bytes);
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(raw[t].data(), args_[set].inputs[t], raw[t].size(),
                                                cudaMemcpyDeviceToHost, prep));
  }
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(prep));
  return [raw = std::move(raw), dtype = problem_.dtype, element_bytes] {
    kernels::HostTensors out(raw.size());
    for (size_t t = 0; t < raw.size(); ++t) {
      ConvertToDouble(raw[t].data(), static_cast<int64_t>(raw[t].size() / element_bytes), dtype,
                      &out[t]);
    }
    return out;
  };
}

}  // namespace kbench::executor::cuda
