// softmax: row-wise, numerically stable (subtract the row max before exp).
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernels/ops/elementwise_common.h"
#include "kernels/ops/ops.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels {

int64_t SoftmaxWorkspaceBytes(const Problem& problem) {
  if (problem.variant != "naive") return 0;
  const int64_t rows = problem.dim(0), cols = problem.dim(1);
  return (rows * cols + 2 * rows) * static_cast<int64_t>(sizeof(float));
}

Operation MakeSoftmaxOp() {
  Operation op;
  op.name = "softmax";
  op.description = "row-wise softmax of a rows x cols matrix, max-subtracted";
  op.dims = {"rows", "cols"};
  op.default_shape = {4096, 4096};
  op.cost_model = "bytes: rows*cols read + written once (the fused minimum); flops: 5 per element";
  op.variants = {
      {"host_rowwise", "three passes per row on one host thread", Backend::kHost, {DType::kF32}},
      {"naive", "five kernels (max, subtract, exp, sum, divide): intermediates round-trip memory",
       Backend::kCuda, FloatDTypes()},
      {"fused", "one block per row: max, sum and normalize in one kernel, row read from L2",
       Backend::kCuda, FloatDTypes()},
      {"warp_per_row", "one warp per row, registers only: for short rows", Backend::kCuda,
       FloatDTypes()},
      {"online", "single pass computing max and rescaled sum together (online softmax)",
       Backend::kCuda, FloatDTypes()},
  };
  op.layout = [](const Problem& p) {
    Layout layout;
    layout.inputs.push_back({"in", p.dim(0) * p.dim(1)});
    layout.outputs.push_back({"out", p.dim(0) * p.dim(1)});
    layout.input_scale = 4.0;  // a spread of exponents, so the max subtraction matters
    layout.workspace_bytes = SoftmaxWorkspaceBytes(p);
    return layout;
  };
  op.cost = [](const Problem& p) {
    const int64_t n = p.dim(0) * p.dim(1);
    return Cost{2 * n * static_cast<int64_t>(StorageBytes(p.dtype)), 5 * n};
  };
  op.reference = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const int64_t rows = p.dim(0), cols = p.dim(1);
    for (int64_t r = 0; r < rows; ++r) {
      const double* x = in[0].data() + r * cols;
      double* y = (*out)[0].data() + r * cols;
      double m = x[0];
      for (int64_t c = 1; c < cols; ++c) m = std::max(m, x[c]);
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[c] - m);
      for (int64_t c = 0; c < cols; ++c) y[c] = std::exp(x[c] - m) / sum;
    }
  };
  op.host_runs["host_rowwise"] = [](const Problem& p, const std::vector<const float*>& in,
                                    const std::vector<float*>& out) {
    const int64_t rows = p.dim(0), cols = p.dim(1);
    for (int64_t r = 0; r < rows; ++r) {
      const float* x = in[0] + r * cols;
      float* y = out[0] + r * cols;
      float m = x[0];
      for (int64_t c = 1; c < cols; ++c) m = std::max(m, x[c]);
      float sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        y[c] = std::exp(x[c] - m);
        sum += y[c];
      }
      const float inv = 1.0f / sum;
      for (int64_t c = 0; c < cols; ++c) y[c] *= inv;
    }
  };
  op.tolerance = [](const Problem& p) { return DefaultTolerance(p.dtype); };
  return op;
}

}  // namespace kbench::kernels
