// The common end of a timed CUDA sample: elapsed time, clock estimate, discard decision.
#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_format.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/measure_modes.h"

namespace kbench::executor::cuda {

namespace {
// Pause after a discarded sample: long enough for the power controller to react (it samples
// at millisecond rates), short against the job's timeout.
constexpr auto kDiscardBackoff = std::chrono::milliseconds(20);
}  // namespace

absl::StatusOr<measure::Sample> FinishSample(const TimedContext& ctx, int64_t launches) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream));
  if (ctx.blocker->TimedOut()) {
    return absl::DeadlineExceededError(absl::StrFormat(
        "the blocking kernel gave up after %.1f s before the timed launches were queued (did a "
        "launch synchronise, or is the host overloaded?); the sample would include host "
        "latency",
        ctx.block_timeout_seconds));
  }
  float ms = 0;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, ctx.start, ctx.stop));
  measure::Sample s;
  s.seconds = static_cast<double>(ms) * 1e-3;
  s.launches = launches;
  const double before = ctx.probe->Mhz(0), after = ctx.probe->Mhz(1);
  if (before > 0 && after > 0) {
    s.sm_clock_mhz = 0.5 * (before + after);
    if (ctx.min_sm_clock_mhz > 0 && std::min(before, after) < ctx.min_sm_clock_mhz) {
      s.discard = true;
      std::this_thread::sleep_for(kDiscardBackoff);
    }
  }
  return s;
}

}  // namespace kbench::executor::cuda
