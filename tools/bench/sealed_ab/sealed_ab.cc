// kbench-sealed-ab: what sealed sampling (issue 23) costs, measured on a GPU in one process.
// For each case, one prepared catalogue variant takes samples the way the executor did before
// (TakeSample: the inputs fixed, the outputs never reset) and sealed (TakeSealedSample: fresh
// inputs and an output pattern before every sample, read-back after it), interleaved A B A B
// so that clocks and temperature fall on both alike. Prints, per case, both medians of the
// timed region (must agree: the sealing happens outside it), and both wall times per sample
// (the sealing's cost). Usage: kbench-sealed-ab [--samples N] [CASE ...], a CASE being
// OP:VARIANT:DTYPE:SHAPE (shape dims joined by x); the four cases by default.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "kernels/catalogue.h"
#include "kernels/dtype.h"
#include "server/executor/cuda/cuda_runner.h"
#include "server/executor/measure/statistics.h"
#include "server/executor/sealed_samples.h"

namespace {

using kbench::executor::BufferPlacement;
using kbench::executor::PreparedVariant;
using kbench::executor::SampleSeal;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool ParseCase(const std::string& text, kbench::kernels::Problem* p) {
  const std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (parts.size() != 4) return false;
  p->op = parts[0];
  p->variant = parts[1];
  absl::StatusOr<kbench::kernels::DType> dtype = kbench::kernels::ParseDType(parts[2]);
  if (!dtype.ok()) return false;
  p->dtype = *dtype;
  for (const absl::string_view d : absl::StrSplit(parts[3], 'x')) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(d, &v)) return false;
    p->shape.push_back(v);
  }
  return kbench::kernels::ValidateProblem(p).ok();
}

int RunCase(kbench::executor::cuda::CudaRunner& runner, const std::string& name, int samples) {
  kbench::kernels::Problem problem;
  if (!ParseCase(name, &problem)) {
    std::fprintf(stderr, "%s: not OP:VARIANT:DTYPE:SHAPE of the catalogue\n", name.c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<PreparedVariant>> pv =
      runner.Prepare(problem, 7, kbench::v1::MEASURE_MODE_COLD, BufferPlacement{});
  if (!pv.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), pv.status().ToString().c_str());
    return 1;
  }
  const kbench::kernels::Layout layout =
      kbench::kernels::FindOperation(problem.op)->layout(problem);
  std::vector<std::vector<int64_t>> positions;
  for (size_t o = 0; o < layout.outputs.size(); ++o) {
    positions.push_back(kbench::executor::SealedPositions(1, 0, static_cast<uint32_t>(o),
                                                          layout.outputs[o].elements,
                                                          kbench::executor::kSealedPositions));
  }
  if (absl::Status s = (*pv)->SetSealedPositions(positions); !s.ok()) return 1;
  if (absl::Status s = (*pv)->Warmup(); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), s.ToString().c_str());
    return 1;
  }
  runner.BeginSampling();
  std::vector<double> plain, sealed;
  double plain_wall = 0, sealed_wall = 0;
  for (int i = 0; i < samples; ++i) {
    Clock::time_point t = Clock::now();
    absl::StatusOr<kbench::measure::Sample> a = (*pv)->TakeSample();
    plain_wall += Since(t);
    t = Clock::now();
    absl::StatusOr<kbench::executor::SealedSample> b =
        (*pv)->TakeSealedSample(kbench::executor::SealFor(1, 0, static_cast<uint64_t>(i)));
    sealed_wall += Since(t);
    if (!a.ok() || !b.ok()) {
      std::fprintf(stderr, "%s: %s %s\n", name.c_str(), a.status().ToString().c_str(),
                   b.status().ToString().c_str());
      return 1;
    }
    if (!a->discard) plain.push_back(a->per_launch());
    if (!b->sample.discard) sealed.push_back(b->sample.per_launch());
  }
  kbench::v1::Environment env;
  runner.EndSampling(&env);
  const auto pa = kbench::measure::ComputeStatistics(plain);
  const auto pb = kbench::measure::ComputeStatistics(sealed);
  std::printf(
      "RESULT %s samples %d plain_median_us %.3f [%.3f, %.3f] sealed_median_us %.3f [%.3f, %.3f] "
      "change %+.2f%% plain_wall_ms_per_sample %.3f sealed_wall_ms_per_sample %.3f\n",
      name.c_str(), samples, pa.median * 1e6, pa.median_ci_low * 1e6, pa.median_ci_high * 1e6,
      pb.median * 1e6, pb.median_ci_low * 1e6, pb.median_ci_high * 1e6,
      100 * (pb.median / pa.median - 1), 1e3 * plain_wall / samples, 1e3 * sealed_wall / samples);
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 200;
  std::vector<std::string> cases;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--samples" && i + 1 < argc) {
      samples = std::atoi(argv[++i]);
    } else {
      cases.push_back(arg);
    }
  }
  if (cases.empty()) {
    cases = {"softmax:fused:f32:4096x4096", "add:vectorized:f32:10000x10000",
             "matmul:cublas:bf16:4096x4096x4096", "copy:vectorized:f32:268435456"};
  }
  kbench::executor::cuda::CudaRunner runner(0);
  if (absl::Status s = runner.Initialize(); !s.ok()) {
    std::fprintf(stderr, "kbench-sealed-ab: %s\n", s.ToString().c_str());
    return 1;
  }
  int rc = 0;
  for (const std::string& c : cases) rc |= RunCase(runner, c, samples);
  return rc;
}
