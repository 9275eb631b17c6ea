// The three ways a CUDA sample is timed (DESIGN.md, "The timing protocol"); each takes one
// sample with device events on the job's timed stream and probes the SM clock around it.
//   cold:  L2 flushed and the stream synchronised, then start event, one launch and stop event
//          queued behind a blocking kernel: no cache reuse, no host launch latency.
//   hot:   a batch of back-to-back launches inside one event pair (the first few queued behind
//          the blocking kernel): the steady-state time with whatever stays in L2. The host's
//          enqueue time is measured too: when it nears the device time, the launch rate is
//          what was timed.
//   graph: a batch captured once in a CUDA graph, launched behind the blocking kernel: no
//          per-launch CPU overhead; the caller rotates buffers so the data does not sit in L2.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "server/executor/cuda/blocking_kernel.h"
#include "server/executor/cuda/clock_probe.h"
#include "server/executor/cuda/l2_flusher.h"
#include "server/executor/measure/sampler.h"

namespace kbench::executor::cuda {

// Enqueues launch number `i` of a batch (i selects the rotated buffer set, if any). Wraps a
// variant's kernels::cuda::LaunchFn with the prepared buffers; timed here, hence the name.
using TimedLaunchFn = std::function<absl::Status(int64_t i)>;

// The instruments a sample uses; owned by the runner, shared by its prepared variants.
struct TimedContext {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  L2Flusher* flusher = nullptr;
  BlockingKernel* blocker = nullptr;
  ClockProbe* probe = nullptr;
  // A sample whose probes saw a mean SM clock under this is discarded (the runner's clock
  // floor, measure/clock_floor.h); 0: none.
  double min_sm_clock_mhz = 0;
  // Seconds the blocking kernel waits for the host before giving up.
  double block_timeout_seconds = 5.0;
};

absl::StatusOr<measure::Sample> MeasureCold(const TimedContext& ctx, const TimedLaunchFn& launch);

absl::StatusOr<measure::Sample> MeasureHot(const TimedContext& ctx, const TimedLaunchFn& launch,
                                           int64_t batch);

// A batch of launches captured in a CUDA graph.
class GraphBatch {
 public:
  // Captures launch(0) .. launch(launches - 1) on ctx.stream and instantiates the graph.
  static absl::StatusOr<std::unique_ptr<GraphBatch>> Capture(cudaStream_t stream,
                                                             const TimedLaunchFn& launch,
                                                             int64_t launches);
  ~GraphBatch();
  GraphBatch(const GraphBatch&) = delete;
  GraphBatch& operator=(const GraphBatch&) = delete;

  cudaGraphExec_t exec() const { return exec_; }
  int64_t launches() const { return launches_; }

 private:
  GraphBatch() = default;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int64_t launches_ = 0;
};

absl::StatusOr<measure::Sample> MeasureGraph(const TimedContext& ctx, const GraphBatch& graph);

// Shared end of every mode: waits for the stop event, reads the elapsed time and the clock
// probes (slot 0 just before the start event, slot 1 just after the stop event), and marks
// the sample discarded when their mean is under the floor. Fails if the blocking kernel timed
// out.
absl::StatusOr<measure::Sample> FinishSample(const TimedContext& ctx, int64_t launches);

}  // namespace kbench::executor::cuda
