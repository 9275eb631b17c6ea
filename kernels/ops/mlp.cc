// mlp: forward + backward of L layers of Linear + GELU (the lectures' run_mlp), `steps` times,
// gradients accumulated as PyTorch's .grad does. Layer l: z = (h W_l^T) / sqrt(dim) + b_l,
// h' = gelu_erf(z); loss = mean(h_L); outputs are h_L and the loss's gradients.
#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "kernels/ops/ops.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels {
namespace {

constexpr double kInvSqrt2 = 0.7071067811865476;
constexpr double kInvSqrt2Pi = 0.3989422804014327;

template <typename R>
R Gelu(R z) {
  return R(0.5) * z * (R(1) + std::erf(z * R(kInvSqrt2)));
}
template <typename R>
R GeluGrad(R z) {
  return R(0.5) * (R(1) + std::erf(z * R(kInvSqrt2))) +
         z * R(kInvSqrt2Pi) * std::exp(R(-0.5) * z * z);
}

// Runs fn(begin, end) over [0, n) split across `threads` threads.
void ParallelFor(int64_t n, int threads, const std::function<void(int64_t, int64_t)>& fn) {
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n)));
  if (threads == 1) return fn(0, n);
  std::vector<std::thread> pool;
  const int64_t chunk = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin < end) pool.emplace_back(fn, begin, end);
  }
  for (std::thread& th : pool) th.join();
}

// Rows processed together so that each streamed weight (or activation) row is reused this many
// times from cache: the reference at dim 4096 would otherwise stream the weights from DRAM once
// per batch row.
constexpr int64_t kRowBlock = 16;
int64_t Blocks(int64_t rows) { return (rows + kRowBlock - 1) / kRowBlock; }

struct Dims {
  int64_t batch, dim, layers, steps;
};

Dims DimsOf(const Problem& p) { return {p.dim(0), p.dim(1), p.param("layers"), p.param("steps")}; }

// One forward + backward step in precision R, grads written (not accumulated). The three
// products run on `threads` threads over blocks of kRowBlock rows; loops keep the innermost index
// contiguous so they vectorize.
template <typename R, typename In>
void MlpStep(const Dims& s, const In* x, const In* w, const In* b, R* y, R* grad_w, R* grad_b,
             int threads) {
  const int64_t B = s.batch, d = s.dim, L = s.layers;
  const R alpha = R(1) / std::sqrt(R(d));
  std::vector<R> z(L * B * d), h((L + 1) * B * d), wt(d * d), g(B * d), dz(B * d);
  for (int64_t i = 0; i < B * d; ++i) h[i] = R(x[i]);
  for (int64_t l = 0; l < L; ++l) {
    const In* wl = w + l * d * d;
    for (int64_t o = 0; o < d; ++o)
      for (int64_t i = 0; i < d; ++i) wt[i * d + o] = R(wl[o * d + i]);
    const R* hin = h.data() + l * B * d;
    R* zl = z.data() + l * B * d;
    R* hout = h.data() + (l + 1) * B * d;
    ParallelFor(Blocks(B), threads, [&](int64_t k0, int64_t k1) {
      for (int64_t r0 = k0 * kRowBlock; r0 < std::min(B, k1 * kRowBlock); r0 += kRowBlock) {
        const int64_t r1 = std::min(B, r0 + kRowBlock);
        std::fill(zl + r0 * d, zl + r1 * d, R(0));
        for (int64_t i = 0; i < d; ++i) {
          const R* wrow = wt.data() + i * d;  // reused by every row of the block
          for (int64_t r = r0; r < r1; ++r) {
            const R a = alpha * hin[r * d + i];
            R* zr = zl + r * d;
            for (int64_t o = 0; o < d; ++o) zr[o] += a * wrow[o];
          }
        }
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t o = 0; o < d; ++o) {
            zl[r * d + o] += R(b[l * d + o]);
            hout[r * d + o] = Gelu(zl[r * d + o]);
          }
        }
      }
    });
  }
  std::copy(h.begin() + L * B * d, h.end(), y);
  // d(mean)/dh_L = 1 / (batch * dim) everywhere.
  std::fill(g.begin(), g.end(), R(1) / R(B * d));
  for (int64_t l = L - 1; l >= 0; --l) {
    const R* zl = z.data() + l * B * d;
    const R* hin = h.data() + l * B * d;
    for (int64_t i = 0; i < B * d; ++i) dz[i] = g[i] * GeluGrad(zl[i]);
    R* gb = grad_b + l * d;
    for (int64_t o = 0; o < d; ++o) gb[o] = 0;
    for (int64_t r = 0; r < B; ++r)
      for (int64_t o = 0; o < d; ++o) gb[o] += dz[r * d + o];
    R* gw = grad_w + l * d * d;
    ParallelFor(Blocks(d), threads, [&](int64_t k0, int64_t k1) {
      for (int64_t o0 = k0 * kRowBlock; o0 < std::min(d, k1 * kRowBlock); o0 += kRowBlock) {
        const int64_t o1 = std::min(d, o0 + kRowBlock);
        std::fill(gw + o0 * d, gw + o1 * d, R(0));
        for (int64_t r = 0; r < B; ++r) {
          const R* hr = hin + r * d;  // reused by every gradient row of the block
          for (int64_t o = o0; o < o1; ++o) {
            const R a = alpha * dz[r * d + o];
            R* row = gw + o * d;
            for (int64_t i = 0; i < d; ++i) row[i] += a * hr[i];
          }
        }
      }
    });
    if (l == 0) break;  // the input needs no gradient
    const In* wl = w + l * d * d;
    ParallelFor(Blocks(B), threads, [&](int64_t k0, int64_t k1) {
      for (int64_t r0 = k0 * kRowBlock; r0 < std::min(B, k1 * kRowBlock); r0 += kRowBlock) {
        const int64_t r1 = std::min(B, r0 + kRowBlock);
        std::fill(g.data() + r0 * d, g.data() + r1 * d, R(0));
        for (int64_t o = 0; o < d; ++o) {
          const In* wrow = wl + o * d;  // reused by every row of the block
          for (int64_t r = r0; r < r1; ++r) {
            const R a = alpha * dz[r * d + o];
            R* gr = g.data() + r * d;
            for (int64_t i = 0; i < d; ++i) gr[i] += a * R(wrow[i]);
          }
        }
      }
    });
  }
}

}  // namespace

int64_t MlpWorkspaceBytes(const Problem& problem) {
  if (problem.variant == "host") return 0;
  const Dims s = DimsOf(problem);
  return ((2 * s.layers + 1) * s.batch * s.dim + s.batch) * static_cast<int64_t>(sizeof(float));
}

Operation MakeMlpOp() {
  Operation op;
  op.name = "mlp";
  op.description =
      "forward + backward of `layers` x (Linear(dim, dim) -> GELU) on a batch x dim input, "
      "`steps` times (the lectures' run_mlp); weights scaled by 1/sqrt(dim) as nn.Linear's init";
  op.dims = {"batch", "dim"};
  op.default_shape = {256, 256};
  op.params = {
      {"layers", "Linear + GELU layers", 1, 64, 4},
      {"steps", "forward + backward steps, gradients accumulated", 1, 16, 1},
  };
  op.cost_model =
      "bytes: x, weights, biases read + output, weight and bias gradients written, per step; "
      "flops: 2 * batch * dim^2 * (3 * layers - 1) per step (forward, weight grad, input "
      "grad; the first layer's input needs no gradient)";
  const std::vector<DType> f32_tf32 = {DType::kF32, DType::kTF32};
  op.variants = {
      {"host", "f32 loops on one host thread", Backend::kHost, {DType::kF32}},
      {"unfused",
       "cuBLAS GEMMs plus one kernel per primitive (bias add, GELU, mean-backward fill, GELU "
       "backward), as eager autograd runs it",
       Backend::kCuda, f32_tf32},
      {"fused",
       "cuBLAS GEMMs with bias + GELU in one pass and the mean-backward folded into the last "
       "GELU backward: fewer launches and memory passes",
       Backend::kCuda, f32_tf32},
  };
  op.layout = [](const Problem& p) {
    const Dims s = DimsOf(p);
    Layout layout;
    layout.inputs = {{"x", s.batch * s.dim},
                     {"weights", s.layers * s.dim * s.dim},
                     {"biases", s.layers * s.dim}};
    layout.outputs = {{"y", s.batch * s.dim},
                      {"grad_weights", s.layers * s.dim * s.dim},
                      {"grad_biases", s.layers * s.dim}};
    layout.workspace_bytes = MlpWorkspaceBytes(p);
    return layout;
  };
  op.cost = [](const Problem& p) {
    const Dims s = DimsOf(p);
    const int64_t e = static_cast<int64_t>(StorageBytes(p.dtype));
    const int64_t params = s.layers * (s.dim * s.dim + s.dim);
    return Cost{s.steps * e * (2 * s.batch * s.dim + 2 * params),
                s.steps * 2 * s.batch * s.dim * s.dim * (3 * s.layers - 1)};
  };
  op.validate = [](const Problem& p) -> absl::Status {
    // cuBLAS takes int sizes: every matrix's element count must fit.
    const Dims s = DimsOf(p);
    constexpr int64_t kMaxMatrix = (int64_t{1} << 31) - 1;
    if (s.batch * s.dim > kMaxMatrix || s.dim * s.dim > kMaxMatrix) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape: mlp batch x dim and dim x dim must each stay under 2^31 elements, got ", s.batch,
          "x", s.dim));
    }
    return absl::OkStatus();
  };
  op.reference = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const Dims s = DimsOf(p);
    const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    MlpStep<double, double>(s, in[0].data(), in[1].data(), in[2].data(), (*out)[0].data(),
                            (*out)[1].data(), (*out)[2].data(), threads);
    // `steps` identical steps accumulate `steps` times the gradients.
    for (size_t o = 1; o < 3; ++o) {
      for (double& v : (*out)[o]) v *= static_cast<double>(s.steps);
    }
  };
  op.host_runs["host"] = [](const Problem& p, const std::vector<const float*>& in,
                            const std::vector<float*>& out) {
    const Dims s = DimsOf(p);
    std::vector<float> gw(s.layers * s.dim * s.dim), gb(s.layers * s.dim);
    std::fill(out[1], out[1] + gw.size(), 0.0f);
    std::fill(out[2], out[2] + gb.size(), 0.0f);
    for (int64_t step = 0; step < s.steps; ++step) {
      MlpStep<float, float>(s, in[0], in[1], in[2], out[0], gw.data(), gb.data(), 1);
      for (size_t i = 0; i < gw.size(); ++i) out[1][i] += gw[i];
      for (size_t i = 0; i < gb.size(); ++i) out[2][i] += gb[i];
    }
  };
  // Products of length dim and batch in f32 err near sqrt(k) * 2^-24 each, compounded over the
  // layers; tf32 keeps 10 mantissa bits in every product.
  op.tolerance = [](const Problem& p) { return p.dtype == DType::kTF32 ? 1e-2 : 1e-4; };
  return op;
}

}  // namespace kbench::kernels
