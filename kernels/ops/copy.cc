// copy: out = in. The bandwidth ceiling every memory-bound result is compared with.
#include <cstring>

#include "kernels/ops/elementwise_common.h"
#include "kernels/ops/ops.h"

namespace kbench::kernels {

Operation MakeCopyOp() {
  Operation op;
  op.name = "copy";
  op.description = "out = in; the device-memory bandwidth ceiling";
  op.dims = {"elements..."};
  op.default_shape = {4096, 4096};
  op.cost_model = "bytes: n read + n written; flops: 0";
  op.variants = {
      {"host_memcpy",
       "std::memcpy on the host: the cpu's copy bandwidth",
       Backend::kHost,
       {DType::kF32}},
      {"vectorized", "16-byte loads and stores in a grid-stride loop", Backend::kCuda,
       FloatDTypes()},
      {"cuda_memcpy", "cudaMemcpyAsync device to device: the driver's copy engine path",
       Backend::kCuda, FloatDTypes()},
  };
  op.layout = [](const Problem& p) { return ElementwiseLayout(p, {"in"}); };
  op.cost = [](const Problem& p) { return Cost{ElementwiseBytes(p, 1), 0}; };
  op.pointwise = true;
  op.reference = [](const Problem&, const HostTensors& in, HostTensors* out) { (*out)[0] = in[0]; };
  op.host_runs["host_memcpy"] = [](const Problem& p, const std::vector<const float*>& in,
                                   const std::vector<float*>& out) {
    std::memcpy(out[0], in[0], static_cast<size_t>(ElementCount(p)) * sizeof(float));
  };
  // A copy is exact in every dtype.
  op.tolerance = [](const Problem&) { return 0.0; };
  return op;
}

}  // namespace kbench::kernels
