// Hot samples: a batch of back-to-back launches inside one event pair.
#include <algorithm>
#include <chrono>

#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/measure_modes.h"

namespace kbench::executor::cuda {

namespace {
// Launches queued while the stream is held. The launch queue is finite: queuing the whole
// batch behind the blocking kernel could fill it and block the host until the timeout (nvbench
// queues 2). A few are enough for the device to be busy when the host starts to race it.
constexpr int64_t kLaunchesWhileBlocked = 4;
}  // namespace

absl::StatusOr<measure::Sample> MeasureHot(const TimedContext& ctx, const TimedLaunchFn& launch,
                                           int64_t batch) {
  double host_seconds = 0;
  {
    if (absl::Status s = ctx.blocker->Block(ctx.stream, ctx.block_timeout_seconds); !s.ok()) {
      return s;
    }
    BlockingKernel::ReleaseGuard release(ctx.blocker);
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 0));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.start, ctx.stream));
    const auto host_start = std::chrono::steady_clock::now();
    const int64_t blocked = std::min(batch, kLaunchesWhileBlocked);
    for (int64_t i = 0; i < blocked; ++i) {
      KBENCH_RETURN_IF_ERROR(launch(i));
    }
    ctx.blocker->Release();
    for (int64_t i = blocked; i < batch; ++i) {
      KBENCH_RETURN_IF_ERROR(launch(i));
    }
    host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.stop, ctx.stream));
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 1));
  }
  absl::StatusOr<measure::Sample> sample = FinishSample(ctx, batch);
  if (sample.ok()) sample->host_enqueue_seconds = host_seconds;
  return sample;
}

}  // namespace kbench::executor::cuda
