// gelu: the tanh approximation and the exact erf form. A variant's name says its form
// ("tanh_*" or "erf_*"); the reference follows the form.
#include <cmath>

#include "absl/strings/match.h"
#include "kernels/ops/elementwise_common.h"
#include "kernels/ops/ops.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels {
namespace {

constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kInvSqrt2 = 0.7071067811865476;

bool IsErfForm(const Problem& p) { return absl::StartsWith(p.variant, "erf"); }

}  // namespace

int64_t GeluWorkspaceBytes(const Problem& problem) {
  if (!absl::EndsWith(problem.variant, "_unfused")) return 0;
  return 2 * ElementCount(problem) * static_cast<int64_t>(sizeof(float));
}

Operation MakeGeluOp() {
  Operation op;
  op.name = "gelu";
  op.description =
      "GELU(x): tanh form 0.5x(1+tanh(sqrt(2/pi)(x+0.044715x^3))) or erf form 0.5x(1+erf(x/sqrt2))";
  op.dims = {"elements..."};
  op.default_shape = {4096, 4096};
  op.cost_model =
      "bytes: n read + n written (the fused minimum; unfused variants move more); flops: 8n";
  op.variants = {
      {"tanh_host", "tanh form, a loop on one host thread", Backend::kHost, {DType::kF32}},
      {"erf_host", "erf form, a loop on one host thread", Backend::kHost, {DType::kF32}},
      {"tanh_unfused",
       "tanh form, one kernel per primitive op (8 launches, f32 intermediates through device "
       "memory), as eager code without fusion runs it",
       Backend::kCuda, FloatDTypes()},
      {"tanh_fused", "tanh form in one kernel: one read, one write", Backend::kCuda, FloatDTypes()},
      {"erf_unfused", "erf form, one kernel per primitive op (5 launches, f32 intermediates)",
       Backend::kCuda, FloatDTypes()},
      {"erf_fused", "erf form in one kernel", Backend::kCuda, FloatDTypes()},
  };
  op.layout = [](const Problem& p) {
    Layout layout = ElementwiseLayout(p, {"in"});
    layout.input_scale = 3.0;  // cover both tails of the curve, not only its linear middle
    layout.workspace_bytes = GeluWorkspaceBytes(p);
    return layout;
  };
  op.cost = [](const Problem& p) { return Cost{ElementwiseBytes(p, 1), 8 * ElementCount(p)}; };
  op.pointwise = true;
  op.reference = [](const Problem& p, const HostTensors& in, HostTensors* out) {
    const bool erf_form = IsErfForm(p);
    for (size_t i = 0; i < in[0].size(); ++i) {
      const double x = in[0][i];
      (*out)[0][i] = erf_form
                         ? 0.5 * x * (1.0 + std::erf(x * kInvSqrt2))
                         : 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
    }
  };
  op.host_runs["tanh_host"] = [](const Problem& p, const std::vector<const float*>& in,
                                 const std::vector<float*>& out) {
    const int64_t n = ElementCount(p);
    for (int64_t i = 0; i < n; ++i) {
      const float x = in[0][i];
      out[0][i] = 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
    }
  };
  op.host_runs["erf_host"] = [](const Problem& p, const std::vector<const float*>& in,
                                const std::vector<float*>& out) {
    const int64_t n = ElementCount(p);
    for (int64_t i = 0; i < n; ++i) {
      const float x = in[0][i];
      out[0][i] = 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
    }
  };
  op.tolerance = [](const Problem& p) { return DefaultTolerance(p.dtype); };
  return op;
}

}  // namespace kbench::kernels
