// The multi-GPU benchmark: check, warm up, sample, check a timed call, summarise.
#include "server/executor/cuda/collective_job.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/catalogue.h"
#include "kernels/cuda/collectives.h"
#include "kernels/ops/collectives.h"
#include "server/common/spec_problem.h"
#include "server/executor/benchmark_job.h"
#include "server/executor/cheat_checks.h"
#include "server/executor/cuda/collective_buffers.h"
#include "server/executor/cuda/collective_check.h"
#include "server/executor/cuda/collective_timer.h"
#include "server/executor/cuda/gang.h"
#include "server/executor/cuda/peer_bandwidth.h"
#include "server/executor/cuda/user_collective.h"
#include "server/executor/measure/sampler.h"
#include "server/executor/progress_phase.h"

namespace kbench::executor::cuda {
namespace {

// One call's deadline: a 1 GiB all-reduce takes milliseconds; past this a rank is hung (the
// scheduler's own deadline for the job kills the executor later still).
constexpr double kCallTimeoutSeconds = 30.0;
// Warm-up: at least this many calls and this much device time (NCCL sets up its channels and
// the peers' pages get mapped on the first calls).
constexpr int kMinWarmupCalls = 5;
constexpr int kMaxWarmupCalls = 1000;
constexpr double kMinWarmupSeconds = 0.05;
// A sample times back-to-back calls for at least this long (nccl-tests' iterations): one call of
// a small message lasts a few microseconds, of which the ranks' start skew (the gates open one
// after the other), the events' own resolution and the barrier's first poll are a fixed part
// that a batch of calls shares. 100 us keeps that part under a few per cent.
constexpr double kTargetSampleSeconds = 100e-6;
constexpr int kMaxCallsPerSample = 256;

struct VariantRun {
  std::string name;
  kernels::Problem problem;
  // Enqueues one call on every rank: a catalogue variant's launcher or a user's kernel.
  std::function<absl::Status(const kernels::cuda::GangLaunch&)> launch;
  // A user kernel's record of what was timed; empty for catalogue variants.
  std::function<void(v1::VariantResult*)> describe;
  std::unique_ptr<CollectiveBuffers> buffers;
  // Per kept sample, every rank's seconds per call.
  std::vector<std::vector<double>> rank_seconds;
  // Calls timed back to back in one sample, set after the warm-up.
  int calls_per_sample = 1;
  int result_index = 0;
};

class CollectiveRun {
 public:
  CollectiveRun(CudaRunner& lead, const JobContext& context)
      : lead_(lead), context_(context), spec_(context.job->spec()) {}

  absl::StatusOr<JobRun> Run() {
    KBENCH_RETURN_IF_ERROR(Initialize());
    KBENCH_RETURN_IF_ERROR(PrepareAndCheckVariants());
    KBENCH_RETURN_IF_ERROR(MeasurePeak());
    KBENCH_RETURN_IF_ERROR(WarmUp());
    KBENCH_RETURN_IF_ERROR(Sample());
    KBENCH_RETURN_IF_ERROR(CheckTimedCalls());
    Summarize();
    KBENCH_RETURN_IF_ERROR(JudgeFloors());
    return std::move(run_);
  }

  // After a failure: whether any device of the gang holds a broken context, and whether the run
  // gave up on work still running there.
  absl::Status GangHealth() { return gang_ == nullptr ? absl::OkStatus() : gang_->StickyErrors(); }
  bool AbandonedWork() const { return gang_ != nullptr && gang_->abandoned_work(); }

 private:
  absl::Status Initialize();
  absl::Status PrepareAndCheckVariants();
  absl::Status MeasurePeak();
  absl::Status WarmUp();
  absl::Status Sample();
  absl::Status CheckTimedCalls();
  void Summarize();
  // Every variant's median held to its bus bytes over the measured peak between the ranks: a
  // median under the floor fails the job (the variant cannot have moved its data).
  absl::Status JudgeFloors();
  void SummarizeVariant(const VariantRun& v, const measure::VariantSamples& samples);

  absl::StatusOr<VariantRun> PrepareVariant(const std::string& name);
  // Loads the job's user kernel `v.name` and fits its launch on every rank; returns what its
  // buffers need.
  absl::StatusOr<const kernels::cuda::CollectiveVariant*> PrepareUserKernel(VariantRun& v);
  // One call of `v` on fresh inputs from `seed`, timed when `timed`, every rank checked.
  absl::StatusOr<v1::Correctness> CheckCall(VariantRun& v, uint64_t seed, bool timed,
                                            const std::string& which);
  // Every rank's seconds for `calls` calls back to back.
  absl::StatusOr<std::vector<double>> TimeCall(VariantRun& v, int calls = 1);
  void Report(v1::ProgressPhase phase, const std::string& variant, int64_t samples = 0,
              double noise = 0, double elapsed = 0) const;

  CudaRunner& lead_;
  const JobContext& context_;
  const v1::JobSpec& spec_;
  std::vector<std::string> devices_;
  std::unique_ptr<DeviceGang> gang_;
  std::unique_ptr<CollectiveTimer> timer_;
  std::vector<VariantRun> variants_;
  std::vector<measure::VariantSamples> sampled_;
  double peak_bus_bytes_per_second_ = 0;
  uint64_t seed_ = 0, check_seed_ = 0, timed_check_seed_ = 0;
  JobRun run_;
};

absl::Status CollectiveRun::Initialize() {
  if (spec_.variants().empty()) return absl::InvalidArgumentError("variants: none given");
  const kernels::Operation* op = kernels::FindOperation(spec_.kernel());
  if (op == nullptr || op->min_devices < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("devices: ", spec_.kernel(), " runs on one device; a job of ",
                     spec_.devices_size(), " devices runs a collective"));
  }
  devices_.assign(spec_.devices().begin(), spec_.devices().end());
  if (devices_.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "devices: the ", spec_.kernel(), " job holds no devices (kbenchd fills JobSpec.devices)"));
  }
  if (devices_.front() != lead_.info().id()) {
    return absl::FailedPreconditionError(
        absl::StrCat("devices: the job's lead device is ", devices_.front(),
                     ", but it reached the executor of ", lead_.info().id()));
  }
  seed_ = spec_.seed() != 0 ? spec_.seed() : DrawCheckSeed();
  check_seed_ = DrawCheckSeed();
  timed_check_seed_ = DrawCheckSeed();
  v1::Environment* env = run_.result.mutable_environment();
  lead_.FillEnvironment(env);
  env->set_seed(seed_);
  lead_.ReadClocks(env->mutable_before());
  KBENCH_ASSIGN_OR_RETURN(gang_, DeviceGang::Open(devices_));
  KBENCH_ASSIGN_OR_RETURN(timer_, CollectiveTimer::Create(*gang_));
  return absl::OkStatus();
}

absl::StatusOr<VariantRun> CollectiveRun::PrepareVariant(const std::string& name) {
  VariantRun v;
  v.name = name;
  KBENCH_ASSIGN_OR_RETURN(v.problem, ProblemFromSpec(spec_, name));
  KBENCH_RETURN_IF_ERROR(kernels::ValidateProblem(&v.problem));
  KBENCH_RETURN_IF_ERROR(kernels::ValidateCollective(v.problem, gang_->world_size()));
  const kernels::cuda::CollectiveVariant* needs = nullptr;
  if (kernels::IsUserVariantName(name)) {
    KBENCH_ASSIGN_OR_RETURN(needs, PrepareUserKernel(v));
  } else {
    needs = kernels::cuda::FindCollectiveVariant(v.problem.op, name);
    if (needs == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("variants: ", spec_.kernel(), "/", name, " has no CUDA launcher"));
    }
    v.launch = [launch = needs->launch, problem = v.problem](
                   const kernels::cuda::GangLaunch& gang) { return launch(problem, gang); };
  }
  KBENCH_ASSIGN_OR_RETURN(v.buffers, CollectiveBuffers::Allocate(*gang_, v.problem, *needs));
  return v;
}

absl::StatusOr<const kernels::cuda::CollectiveVariant*> CollectiveRun::PrepareUserKernel(
    VariantRun& v) {
  const v1::UserKernel* kernel = nullptr;
  for (const v1::UserKernel& uk : spec_.user_kernels()) {
    if (uk.name() == v.name) kernel = &uk;
  }
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("variants: '", v.name, "' names no user kernel of the job"));
  }
  // One module for the gang, compiled for the lead's architecture: every rank must share it.
  std::vector<int> ordinals;
  for (int r = 0; r < gang_->world_size(); ++r) {
    ordinals.push_back(gang_->ordinal(r));
    KBENCH_RETURN_IF_ERROR(gang_->RequireSameArchitecture(0, r));
  }
  bool cache_hit = false;
  KBENCH_ASSIGN_OR_RETURN(
      const LoadedUserModule* module,
      lead_.LoadUserModule(*kernel, context_.job->artifact_dir(), context_.cancelled, &cache_hit));
  KBENCH_ASSIGN_OR_RETURN(
      UserCollectiveLauncher launcher,
      MakeUserCollectiveLauncher(*module, *kernel, v.problem, ordinals, cache_hit));
  v.launch = std::move(launcher.launch);
  v.describe = std::move(launcher.describe);
  return &UserCollectiveNeeds();
}

absl::Status CollectiveRun::PrepareAndCheckVariants() {
  for (const std::string& name : spec_.variants()) {
    Report(v1::PROGRESS_PHASE_CHECK, name);
    KBENCH_ASSIGN_OR_RETURN(VariantRun v, PrepareVariant(name));
    v1::VariantResult* vr = run_.result.add_variants();
    v.result_index = run_.result.variants_size() - 1;
    vr->set_variant(name);
    // Calls back to back without an L2 flush between them: the collectives' own regime.
    vr->set_mode(v1::MEASURE_MODE_HOT);
    KBENCH_ASSIGN_OR_RETURN(*vr->mutable_correctness(), CheckCall(v, check_seed_, false, ""));
    variants_.push_back(std::move(v));
  }
  return absl::OkStatus();
}

absl::Status CollectiveRun::MeasurePeak() {
  Report(v1::PROGRESS_PHASE_MEASURE, "peer bandwidth");
  KBENCH_ASSIGN_OR_RETURN(peak_bus_bytes_per_second_,
                          MeasurePeerBandwidth(*gang_, context_.cancelled));
  return absl::OkStatus();
}

absl::StatusOr<v1::Correctness> CollectiveRun::CheckCall(VariantRun& v, uint64_t seed, bool timed,
                                                         const std::string& which) {
  KBENCH_RETURN_IF_ERROR(v.buffers->FillInputsAndPoison(seed));
  if (timed) {
    KBENCH_RETURN_IF_ERROR(TimeCall(v).status());
  } else {
    KBENCH_RETURN_IF_ERROR(v.launch(v.buffers->launch()));
    KBENCH_RETURN_IF_ERROR(gang_->Synchronize(context_.cancelled, kCallTimeoutSeconds));
  }
  std::vector<int64_t> unwritten;
  KBENCH_ASSIGN_OR_RETURN(const auto sends, v.buffers->ReadSends());
  KBENCH_ASSIGN_OR_RETURN(const auto recvs, v.buffers->ReadRecvs(&unwritten));
  const GangCorrectness checked = CheckEveryRank(v.problem, sends, recvs, unwritten, seed);
  if (checked.failed_rank >= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("correctness: ", spec_.kernel(), "/", v.name, which, " on rank ",
                     checked.failed_rank, " (", gang_->name(checked.failed_rank),
                     ") does not match the float64 reference: ", checked.correctness.detail()));
  }
  // Every rank passed: leave the timing's own inputs in place (the spec's seed).
  KBENCH_RETURN_IF_ERROR(v.buffers->FillInputsAndPoison(seed_));
  KBENCH_RETURN_IF_ERROR(gang_->Synchronize(context_.cancelled, kCallTimeoutSeconds));
  return checked.correctness;
}

absl::StatusOr<std::vector<double>> CollectiveRun::TimeCall(VariantRun& v, int calls) {
  const auto enqueue = [&]() -> absl::Status {
    for (int i = 0; i < calls; ++i) KBENCH_RETURN_IF_ERROR(v.launch(v.buffers->launch()));
    return absl::OkStatus();
  };
  return timer_->TimeCall(enqueue, context_.cancelled, kCallTimeoutSeconds * calls);
}

absl::Status CollectiveRun::WarmUp() {
  for (VariantRun& v : variants_) {
    Report(v1::PROGRESS_PHASE_WARMUP, v.name);
    double device_seconds = 0;
    double fastest = 0;
    for (int call = 0; call < kMaxWarmupCalls; ++call) {
      if (call >= kMinWarmupCalls && device_seconds >= kMinWarmupSeconds) break;
      KBENCH_ASSIGN_OR_RETURN(const std::vector<double> seconds, TimeCall(v));
      const double slowest = seconds[SlowestRank(seconds)];
      device_seconds += slowest;
      fastest = call == 0 ? slowest : std::min(fastest, slowest);
    }
    v.calls_per_sample =
        fastest <= 0 ? kMaxCallsPerSample
                     : std::clamp(static_cast<int>(std::ceil(kTargetSampleSeconds / fastest)), 1,
                                  kMaxCallsPerSample);
  }
  return absl::OkStatus();
}

absl::Status CollectiveRun::Sample() {
  std::vector<std::string> names;
  std::vector<measure::SampleFn> fns;
  for (VariantRun& v : variants_) {
    names.push_back(v.name);
    fns.push_back([this, &v]() -> absl::StatusOr<measure::Sample> {
      KBENCH_ASSIGN_OR_RETURN(std::vector<double> seconds, TimeCall(v, v.calls_per_sample));
      measure::Sample s;
      s.seconds = seconds[SlowestRank(seconds)];
      s.launches = v.calls_per_sample;
      for (double& rank : seconds) rank /= v.calls_per_sample;
      v.rank_seconds.push_back(std::move(seconds));
      return s;
    });
  }
  measure::SamplerHooks hooks;
  hooks.cancelled = context_.cancelled;
  hooks.progress = [&](const measure::ProgressUpdate& u) {
    Report(v1::PROGRESS_PHASE_MEASURE, u.variant, u.samples, u.noise, u.elapsed_seconds);
  };
  v1::Environment* env = run_.result.mutable_environment();
  lead_.BeginSampling();
  absl::Cleanup end = [&] { lead_.EndSampling(env); };
  KBENCH_ASSIGN_OR_RETURN(
      sampled_, measure::SampleInterleaved(names, fns, CriteriaFromSpec(spec_.stopping()), hooks));
  std::move(end).Invoke();
  lead_.ReadClocks(env->mutable_after());
  return absl::OkStatus();
}

absl::Status CollectiveRun::CheckTimedCalls() {
  // A timed call on inputs no call has seen: a variant that only computes when checked, or
  // replays an earlier result, fails here.
  for (VariantRun& v : variants_) {
    Report(v1::PROGRESS_PHASE_CHECK, v.name);
    KBENCH_ASSIGN_OR_RETURN(
        *run_.result.mutable_variants(v.result_index)->mutable_timed_correctness(),
        CheckCall(v, timed_check_seed_, true, "'s timed call"));
  }
  return absl::OkStatus();
}

absl::Status CollectiveRun::JudgeFloors() {
  for (const VariantRun& v : variants_) {
    v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
    *vr->mutable_floor() = JudgeCollectiveFloor(
        static_cast<double>(vr->bytes()), peak_bus_bytes_per_second_, vr->stats().median_seconds());
    if (vr->floor().impossible()) {
      return absl::FailedPreconditionError(
          absl::StrCat("impossible: ", spec_.kernel(), "/", v.name, " ", vr->floor().detail(),
                       "; the variant cannot have moved its data between the ranks"));
    }
  }
  return absl::OkStatus();
}

void CollectiveRun::Summarize() {
  for (size_t i = 0; i < variants_.size(); ++i) SummarizeVariant(variants_[i], sampled_[i]);
}

void CollectiveRun::SummarizeVariant(const VariantRun& v, const measure::VariantSamples& samples) {
  v1::VariantResult* vr = run_.result.mutable_variants(v.result_index);
  const std::vector<double> per_call = samples.per_launch_seconds();
  const measure::SampleStatistics stats = measure::ComputeStatistics(per_call);
  FillStatistics(stats, v.calls_per_sample, vr->mutable_stats());
  KeepSamples(per_call, vr);
  const int world = gang_->world_size();
  const kernels::CollectiveBytes bytes =
      kernels::ByteModel(*kernels::FindCollective(v.problem.op), v.problem, world);
  v1::Collective* c = vr->mutable_collective();
  c->set_world_size(world);
  for (const std::string& d : devices_) c->add_devices(d);
  c->set_message_bytes(bytes.message_bytes);
  c->set_bus_factor(bytes.bus_factor);
  c->set_peak_bus_bytes_per_second(peak_bus_bytes_per_second_);
  c->set_ranks_checked(world);
  std::vector<double> rank_medians;
  for (int r = 0; r < world; ++r) {
    std::vector<double> mine;
    for (const std::vector<double>& sample : v.rank_seconds) mine.push_back(sample[r]);
    rank_medians.push_back(measure::ComputeStatistics(std::move(mine)).median);
    c->add_rank_median_seconds(rank_medians.back());
  }
  c->set_slowest_rank(SlowestRank(rank_medians));
  // bytes and bytes/s are the bus's, so that kbctl's bandwidth column reads as nccl-tests' busbw.
  vr->set_bytes(static_cast<int64_t>(bytes.bus_bytes()));
  if (stats.median > 0) {
    c->set_algorithm_bytes_per_second(static_cast<double>(bytes.message_bytes) / stats.median);
    c->set_bus_bytes_per_second(bytes.bus_bytes() / stats.median);
    vr->set_bytes_per_second(c->bus_bytes_per_second());
    vr->set_median_precision(0.5 * (stats.median_ci_high - stats.median_ci_low) / stats.median);
    const double first = run_.result.variants(0).stats().median_seconds();
    vr->set_speedup_vs_first(first / stats.median);
  }
  vr->set_stop_reason(samples.decision.reason);
  vr->set_stop_criterion(StopCriterionToProto(samples.decision.criterion));
  vr->set_converged(samples.decision.converged);
  vr->set_measured_seconds(samples.measured_seconds);
  vr->set_wall_seconds(samples.wall_seconds);
  if (v.describe) v.describe(vr);
}

void CollectiveRun::Report(v1::ProgressPhase phase, const std::string& variant, int64_t samples,
                           double noise, double elapsed) const {
  ReportProgress(context_.progress, phase, variant, samples, noise, elapsed);
}

}  // namespace

bool IsCollectiveJob(const v1::JobSpec& spec) {
  const kernels::Operation* op = kernels::FindOperation(spec.kernel());
  return (op != nullptr && op->min_devices > 1) || spec.devices_size() > 1;
}

absl::StatusOr<JobRun> RunCollectiveJob(CudaRunner& lead, const JobContext& context) {
  absl::Cleanup lead_again = [&] { cudaSetDevice(lead.ordinal()); };
  CollectiveRun run(lead, context);
  absl::StatusOr<JobRun> result = run.Run();
  if (result.ok()) return result;
  // A restart for a broken context, for work left running (aborted NCCL, a peer kernel spinning
  // until its barrier traps), or for an error inside CUDA or NCCL (INTERNAL): never for a wrong
  // output, a refused spec or a cancel between calls.
  const absl::Status health = run.GangHealth();
  if (!health.ok() || run.AbandonedWork() ||
      result.status().code() == absl::StatusCode::kInternal) {
    lead.RequireRestart();
    return absl::Status(result.status().code(),
                        absl::StrCat(result.status().message(),
                                     health.ok() ? "" : absl::StrCat("; ", health.message()),
                                     "; the executor restarts before the next job"));
  }
  return result;
}

}  // namespace kbench::executor::cuda
