// gelu's CUDA variants: unfused (one kernel per primitive op, intermediates in device memory, as
// eager code without fusion runs it) and fused (one read, one write), in tanh and erf forms.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/variant_tables.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels::cuda {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kInvSqrt2 = 0.7071067811865476f;

struct GeluTanhOp {
  __device__ __forceinline__ float operator()(float x) const {
    return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
  }
};
struct GeluErfOp {
  __device__ __forceinline__ float operator()(float x) const {
    return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
  }
};

// The unfused forms keep their two intermediates in the workspace as f32 (GeluWorkspaceBytes):
// every operator reads and writes device memory, as eager code does, while rounding only the
// output to the dtype. (Rounding each f16/bf16 intermediate loses the tails: 1 + tanh(z) cancels
// for negative x, and a one-element check fails by 10%.)
struct UnfusedBuffers {
  float* w0;
  float* w1;
  int64_t n;
};

UnfusedBuffers Buffers(const Problem& problem, const LaunchArgs& args) {
  const int64_t n = Elements(problem);
  float* ws = static_cast<float*>(args.workspace);
  return {ws, ws + n, n};
}

constexpr auto kV = ElementwiseKind::kVectorized;
constexpr const float* kNone = nullptr;

absl::Status LaunchGeluTanhUnfused(const Problem& problem, const LaunchArgs& args) {
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(GeluWorkspaceBytes(problem), problem, args));
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    const UnfusedBuffers b = Buffers(problem, args);
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), one kernel per operator.
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, x, kNone, b.w0, b.n, CubeOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, kNone, b.w1, b.n, ScaleOp{0.044715f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, x, b.w1, b.w0, b.n, AddOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, kNone, b.w1, b.n, ScaleOp{kSqrt2OverPi}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, b.w1, kNone, b.w0, b.n, TanhOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, kNone, b.w1, b.n, AddScalarOp{1.0f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, x, kNone, b.w0, b.n, ScaleOp{0.5f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, b.w0, b.w1, out, b.n, MulOp{}, args));
    return absl::OkStatus();
  });
}

absl::Status LaunchGeluErfUnfused(const Problem& problem, const LaunchArgs& args) {
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(GeluWorkspaceBytes(problem), problem, args));
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(args.inputs[0]);
    T* out = static_cast<T*>(args.outputs[0]);
    const UnfusedBuffers b = Buffers(problem, args);
    // 0.5 * x * (1 + erf(x / sqrt(2))), one kernel per operator.
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, x, kNone, b.w0, b.n, ScaleOp{kInvSqrt2}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, b.w0, kNone, b.w1, b.n, ErfOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w1, kNone, b.w0, b.n, AddScalarOp{1.0f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, x, kNone, b.w1, b.n, ScaleOp{0.5f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, b.w1, b.w0, out, b.n, MulOp{}, args));
    return absl::OkStatus();
  });
}

absl::Status LaunchGeluTanhFused(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<1>(ElementwiseKind::kVectorized, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(nullptr), static_cast<T*>(args.outputs[0]),
                                Elements(problem), GeluTanhOp{}, args);
  });
}

absl::Status LaunchGeluErfFused(const Problem& problem, const LaunchArgs& args) {
  return DispatchFloat(problem.dtype, [&](auto tag) {
    using T = decltype(tag);
    return LaunchElementwise<1>(ElementwiseKind::kVectorized, static_cast<const T*>(args.inputs[0]),
                                static_cast<const T*>(nullptr), static_cast<T*>(args.outputs[0]),
                                Elements(problem), GeluErfOp{}, args);
  });
}

}  // namespace

CudaVariantTable GeluCudaVariants() {
  return {
      {"gelu", "tanh_unfused", LaunchGeluTanhUnfused},
      {"gelu", "tanh_fused", LaunchGeluTanhFused},
      {"gelu", "erf_unfused", LaunchGeluErfUnfused},
      {"gelu", "erf_fused", LaunchGeluErfFused},
  };
}

}  // namespace kbench::kernels::cuda
