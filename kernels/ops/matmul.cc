// matmul: C[m,n] = A[m,k] * B[k,n], row-major. cuBLAS is the vendor reference.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "kernels/ops/ops.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels {

TensorCorePitches MatmulTensorCorePitches(const Problem& problem) {
  const int64_t n = problem.dim(1), k = problem.dim(2);
  auto up8 = [](int64_t x) { return (x + 7) / 8 * 8; };
  return {up8(k), up8(n)};
}

int64_t MatmulWorkspaceBytes(const Problem& problem) {
  if (problem.variant != "tensorcore") return 0;
  const int64_t m = problem.dim(0), n = problem.dim(1), k = problem.dim(2);
  const TensorCorePitches pitches = MatmulTensorCorePitches(problem);
  const int64_t elements =
      (pitches.lda != k ? m * pitches.lda : 0) + (pitches.ldb != n ? k * pitches.ldb : 0);
  return elements * static_cast<int64_t>(StorageBytes(problem.dtype));
}

Operation MakeMatmulOp() {
  Operation op;
  op.name = "matmul";
  op.description = "C = A * B with A m x k, B k x n, row-major; f32 accumulate";
  op.dims = {"m", "n", "k"};
  op.default_shape = {1024, 1024, 1024};
  op.cost_model = "bytes: A, B read once, C written once; flops: 2mnk";
  const std::vector<DType> all = {DType::kF32, DType::kTF32, DType::kF16, DType::kBF16};
  op.variants = {
      {"host_naive", "i-k-j loops on one host thread", Backend::kHost, {DType::kF32}},
      {"naive",
       "one thread per output element, operands from global memory",
       Backend::kCuda,
       {DType::kF32}},
      {"tiled",
       "32x32 shared-memory tiles: each operand element loaded once per tile",
       Backend::kCuda,
       {DType::kF32}},
      {"register_blocked",
       "128x128 tiles, 8x8 outputs per thread in registers: each shared-memory read feeds 8 FMAs",
       Backend::kCuda,
       {DType::kF32}},
      {"tensorcore",
       "wgmma tensor cores (sm_90a) fed by TMA through a 4-stage ring, producer/consumer "
       "warpgroups; bf16/f16 in, f32 accumulate",
       Backend::kCuda,
       {DType::kBF16, DType::kF16}},
      {"cublas", "cuBLAS GEMM (tf32 = f32 storage with TF32 tensor cores): the vendor reference",
       Backend::kCuda, all},
  };
  op.layout = [](const Problem& p) {
    const int64_t m = p.dim(0), n = p.dim(1), k = p.dim(2);
    Layout layout;
    layout.inputs = {{"a", m * k}, {"b", k * n}};
    layout.outputs = {{"c", m * n}};
    layout.workspace_bytes = MatmulWorkspaceBytes(p);
    return layout;
  };
  op.cost = [](const Problem& p) {
    const int64_t m = p.dim(0), n = p.dim(1), k = p.dim(2);
    return Cost{(m * k + k * n + m * n) * static_cast<int64_t>(StorageBytes(p.dtype)),
                2 * m * n * k};
  };
  op.reference_element = [](const Problem& p, const HostTensors& in, size_t, int64_t index) {
    const int64_t n = p.dim(1), k = p.dim(2);
    const int64_t row = index / n, col = index % n;
    double acc = 0;
    for (int64_t i = 0; i < k; ++i) acc += in[0][row * k + i] * in[1][i * n + col];
    return acc;
  };
  op.reference = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const int64_t m = p.dim(0), n = p.dim(1), k = p.dim(2);
    std::vector<double>& c = (*out)[0];
    std::fill(c.begin(), c.end(), 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        const double a = in[0][i * k + kk];
        for (int64_t j = 0; j < n; ++j) c[i * n + j] += a * in[1][kk * n + j];
      }
  };
  op.host_runs["host_naive"] = [](const Problem& p, const std::vector<const float*>& in,
                                  const std::vector<float*>& out) {
    const int64_t m = p.dim(0), n = p.dim(1), k = p.dim(2);
    float* c = out[0];
    std::fill(c, c + m * n, 0.0f);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        const float a = in[0][i * k + kk];
        const float* b = in[1] + kk * n;
        for (int64_t j = 0; j < n; ++j) c[i * n + j] += a * b[j];
      }
  };
  // Errors of a k-long f32 dot product grow like sqrt(k) * eps; tf32 keeps 10 mantissa bits;
  // f16/bf16 round the output.
  op.tolerance = [](const Problem& p) {
    switch (p.dtype) {
      case DType::kF32:
        return 1e-4;
      case DType::kTF32:
      case DType::kF16:
        return 5e-3;
      case DType::kBF16:
        return 1e-2;
    }
    return 1e-4;
  };
  return op;
}

}  // namespace kbench::kernels
