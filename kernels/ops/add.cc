// add: out = a + b, the binary elementwise operation.
#include "kernels/ops/elementwise_common.h"
#include "kernels/ops/ops.h"

namespace kbench::kernels {

Operation MakeAddOp() {
  Operation op;
  op.name = "add";
  op.description = "out = a + b, elementwise";
  op.dims = {"elements..."};
  op.default_shape = {4096, 4096};
  op.cost_model = "bytes: 2n read + n written; flops: n";
  op.variants = {
      {"host_loop", "a plain loop on one host thread", Backend::kHost, {DType::kF32}},
      {"naive", "one element per thread", Backend::kCuda, FloatDTypes()},
      {"vectorized", "16-byte loads and stores per thread", Backend::kCuda, FloatDTypes()},
  };
  op.layout = [](const Problem& p) { return ElementwiseLayout(p, {"a", "b"}); };
  op.cost = [](const Problem& p) { return Cost{ElementwiseBytes(p, 2), ElementCount(p)}; };
  op.pointwise = true;
  op.reference = [](const Problem&, const HostTensors& in, HostTensors* out) {
    for (size_t i = 0; i < in[0].size(); ++i) (*out)[0][i] = in[0][i] + in[1][i];
  };
  op.host_runs["host_loop"] = [](const Problem& p, const std::vector<const float*>& in,
                                 const std::vector<float*>& out) {
    const int64_t n = ElementCount(p);
    for (int64_t i = 0; i < n; ++i) out[0][i] = in[0][i] + in[1][i];
  };
  op.tolerance = [](const Problem& p) { return DefaultTolerance(p.dtype); };
  return op;
}

}  // namespace kbench::kernels
