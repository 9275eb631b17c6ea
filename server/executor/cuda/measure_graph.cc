// Graph samples: one launch of a captured batch, behind the blocking kernel.
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/cuda_variants.h"
#include "server/executor/cuda/measure_modes.h"

namespace kbench::executor::cuda {

absl::StatusOr<std::unique_ptr<GraphBatch>> GraphBatch::Capture(cudaStream_t stream,
                                                                const TimedLaunchFn& launch,
                                                                int64_t launches) {
  std::unique_ptr<GraphBatch> g(new GraphBatch);
  g->launches_ = launches;
  // Thread-local mode: only this thread's unsafe calls (a sync, an allocation) break capture,
  // and such a call inside a launch is reported as the launch's error.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  absl::Status launched = absl::OkStatus();
  for (int64_t i = 0; i < launches && launched.ok(); ++i) launched = launch(i);
  const cudaError_t end = cudaStreamEndCapture(stream, &g->graph_);
  if (!launched.ok()) {
    cudaGetLastError();
    return absl::Status(launched.code(),
                        absl::StrCat("while capturing a graph: ", launched.message()));
  }
  KBENCH_CUDA_RETURN_IF_ERROR(end);
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(&g->exec_, g->graph_, 0));
  // The first launch uploads the graph to the device; keep that out of every sample.
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGraphUpload(g->exec_, stream));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return g;
}

GraphBatch::~GraphBatch() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

absl::StatusOr<measure::Sample> MeasureGraph(const TimedContext& ctx, const GraphBatch& graph) {
  {
    if (absl::Status s = ctx.blocker->Block(ctx.stream, ctx.block_timeout_seconds); !s.ok()) {
      return s;
    }
    BlockingKernel::ReleaseGuard release(ctx.blocker);
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 0));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.start, ctx.stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(graph.exec(), ctx.stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ctx.stop, ctx.stream));
    KBENCH_RETURN_IF_ERROR(ctx.probe->Record(ctx.stream, 1));
  }
  return FinishSample(ctx, graph.launches());
}

}  // namespace kbench::executor::cuda
