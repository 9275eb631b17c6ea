// Cold samples: flush the L2, synchronise, hold the stream, queue start/launch/stop, release.
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/measure_modes.h"

namespace kbench::executor::cuda {

absl::StatusOr<measure::Sample> MeasureCold(const TimedContext& ctx, const TimedLaunchFn& launch) {
  KBENCH_RETURN_IF_ERROR(ctx.flusher->Flush(ctx.stream));
  // Nothing of the flush may still be in flight when the timed launch starts.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(ctx.stream));
  {
    if (absl::Status s = ctx.blocker->Block(ctx.stream, ctx.block_timeout_seconds); !s.ok()) {
      return s;
    }
    BlockingKernel::ReleaseGuard release(ctx.blocker);
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 0));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.start, ctx.stream));
    KBENCH_RETURN_IF_ERROR(launch(0));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.stop, ctx.stream));
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 1));
  }
  return FinishSample(ctx, 1);
}

}  // namespace kbench::executor::cuda
