// reduce: sums of a rows x cols matrix, either per row (variants "rows_*", output rows values)
// or of every element (variants "full_*", output one value). Accumulation is f32 on the device.
#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kernels/ops/elementwise_common.h"
#include "kernels/ops/ops.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels {
namespace {

bool IsFullSum(const Problem& p) { return absl::StartsWith(p.variant, "full"); }

// Sums in chunks of 1024 so that a long f32 sum does not lose the small terms.
float ChunkedSum(const float* x, int64_t n) {
  float total = 0;
  for (int64_t start = 0; start < n; start += 1024) {
    float chunk = 0;
    const int64_t end = std::min(n, start + 1024);
    for (int64_t i = start; i < end; ++i) chunk += x[i];
    total += chunk;
  }
  return total;
}

}  // namespace

int64_t ReduceWorkspaceBytes(const Problem& problem) {
  if (!IsFullSum(problem) || problem.variant == "full_host") return 0;
  return kReduceMaxPartials * static_cast<int64_t>(sizeof(float)) + 16;
}

Operation MakeReduceOp() {
  Operation op;
  op.name = "reduce";
  op.description = "sums of a rows x cols matrix: per row (rows_*) or of all elements (full_*)";
  op.dims = {"rows", "cols"};
  op.default_shape = {4096, 4096};
  op.cost_model = "bytes: rows*cols read + the sums written; flops: rows*cols adds";
  op.variants = {
      {"rows_host", "row sums, a loop on one host thread", Backend::kHost, {DType::kF32}},
      {"full_host",
       "sum of all elements, a loop on one host thread",
       Backend::kHost,
       {DType::kF32}},
      {"rows_thread",
       "row sums, one thread per row: neighbouring threads read a row apart, nothing coalesces",
       Backend::kCuda, FloatDTypes()},
      {"rows_warp", "row sums, one warp per row with 16-byte loads and a shuffle reduction",
       Backend::kCuda, FloatDTypes()},
      {"rows_block", "row sums, one block per row: parallelism for few, long rows", Backend::kCuda,
       FloatDTypes()},
      {"full_two_pass",
       "full sum: per-block partials to memory, then a second kernel adds them (deterministic)",
       Backend::kCuda, FloatDTypes()},
      {"full_single_pass",
       "full sum in one kernel: the last block to finish (atomic ticket) adds the partials",
       Backend::kCuda, FloatDTypes()},
  };
  op.layout = [](const Problem& p) {
    Layout layout;
    layout.inputs.push_back({"in", p.dim(0) * p.dim(1)});
    layout.outputs.push_back({IsFullSum(p) ? "sum" : "row_sums", IsFullSum(p) ? 1 : p.dim(0)});
    layout.workspace_bytes = ReduceWorkspaceBytes(p);
    return layout;
  };
  op.cost = [](const Problem& p) {
    const int64_t n = p.dim(0) * p.dim(1);
    const int64_t outputs = IsFullSum(p) ? 1 : p.dim(0);
    return Cost{(n + outputs) * static_cast<int64_t>(StorageBytes(p.dtype)), n};
  };
  op.reference = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const int64_t rows = p.dim(0), cols = p.dim(1);
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += in[0][r * cols + c];
      if (!IsFullSum(p)) (*out)[0][r] = s;
      total += s;
    }
    if (IsFullSum(p)) (*out)[0][0] = total;
  };
  op.host_runs["rows_host"] = [](const Problem& p, const std::vector<const float*>& in,
                                 const std::vector<float*>& out) {
    const int64_t rows = p.dim(0), cols = p.dim(1);
    for (int64_t r = 0; r < rows; ++r) out[0][r] = ChunkedSum(in[0] + r * cols, cols);
  };
  op.host_runs["full_host"] = [](const Problem& p, const std::vector<const float*>& in,
                                 const std::vector<float*>& out) {
    out[0][0] = ChunkedSum(in[0], p.dim(0) * p.dim(1));
  };
  // A sum of n f32 terms errs by about sqrt(n) roundings of the running value; f16/bf16 round
  // the output once more.
  op.tolerance = [](const Problem& p) { return DefaultTolerance(p.dtype); };
  // That error scales with the running sums, whose typical size for terms of mixed sign is
  // sqrt(sum of x^2) (a random walk), not with the result: random inputs that happen to cancel
  // to near zero made a correct sum fail. Measured with NumPy on 20 draws of 2^20 uniform terms
  // summed as full_host does (f32, chunks of 1024): error / |sum| reached 1.5e-5 (over the f32
  // tolerance 1e-5), error / sqrt(sum x^2) at most 2.6e-6 (median 7.8e-7); dropping one term
  // is 8.5e-4 against sqrt(sum x^2), 85x over the tolerance, so a wrong sum still fails.
  op.error_scale = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const int64_t rows = p.dim(0), cols = p.dim(1);
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double s2 = 0;
      for (int64_t c = 0; c < cols; ++c) s2 += in[0][r * cols + c] * in[0][r * cols + c];
      if (!IsFullSum(p)) (*out)[0][r] = std::sqrt(s2);
      total += s2;
    }
    if (IsFullSum(p)) (*out)[0][0] = std::sqrt(total);
  };
  return op;
}

}  // namespace kbench::kernels
