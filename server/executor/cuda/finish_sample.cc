// The common end of a timed CUDA sample: elapsed time, clock estimate, discard decision.
#include "absl/strings/str_format.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/measure_modes.h"

namespace kbench::executor::cuda {

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
  // The probes bracket the timed region (just after the blocker releases, just after the stop
  // event): their mean estimates the clock across it, where the minimum of two windows would
  // judge a whole batch by its edges. The sampler backs off after a discard
  // (measure::DiscardBackoffSeconds).
  const double before = ctx.probe->Mhz(0), after = ctx.probe->Mhz(1);
  if (before > 0 && after > 0) {
    s.sm_clock_mhz = 0.5 * (before + after);
    s.clock_floor_mhz = ctx.min_sm_clock_mhz;
    s.discard = ctx.min_sm_clock_mhz > 0 && s.sm_clock_mhz < ctx.min_sm_clock_mhz;
  }
  return s;
}

}  // namespace kbench::executor::cuda
