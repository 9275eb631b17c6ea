// gelu's CUDA variants: unfused (one kernel per primitive op, intermediates in device memory, as
// eager code without fusion runs it) and fused (one read, one write), in tanh and erf forms.
#include "kernels/cuda/elementwise.cuh"
#include "kernels/cuda/launchers.h"

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

// The two intermediates of the unfused forms live in the workspace (2 n elements of T).
template <typename T>
struct UnfusedBuffers {
  const T* x;
  T* w0;
  T* w1;
  T* out;
  int64_t n;
};

template <typename T>
UnfusedBuffers<T> Buffers(const Problem& problem, const LaunchArgs& args) {
  const int64_t n = Elements(problem);
  T* ws = static_cast<T*>(args.workspace);
  return {static_cast<const T*>(args.inputs[0]), ws, ws + n, static_cast<T*>(args.outputs[0]), n};
}

absl::Status CheckWorkspace(const Problem& problem, const LaunchArgs& args) {
  const size_t need = 2 * static_cast<size_t>(Elements(problem)) * StorageBytes(problem.dtype);
  if (args.workspace == nullptr || args.workspace_bytes < need) {
    return absl::InvalidArgumentError(absl::StrCat("workspace: gelu/", problem.variant, " needs ",
                                                   need, " bytes, got ", args.workspace_bytes));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LaunchGeluTanhUnfused(const Problem& problem, const LaunchArgs& args) {
  if (absl::Status s = CheckWorkspace(problem, args); !s.ok()) return s;
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const UnfusedBuffers<T> b = Buffers<T>(problem, args);
    constexpr auto kV = ElementwiseKind::kVectorized;
    const T* none = nullptr;
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), one kernel per operator.
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, b.x, none, b.w0, b.n, CubeOp{}, args));  // x^3
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, none, b.w1, b.n, ScaleOp{0.044715f}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, b.x, b.w1, b.w0, b.n, AddOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, none, b.w1, b.n, ScaleOp{kSqrt2OverPi}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, b.w1, none, b.w0, b.n, TanhOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w0, none, b.w1, b.n, AddScalarOp{1.0f}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.x, none, b.w0, b.n, ScaleOp{0.5f}, args));  // 0.5x
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, b.w0, b.w1, b.out, b.n, MulOp{}, args));
    return absl::OkStatus();
  });
}

absl::Status LaunchGeluErfUnfused(const Problem& problem, const LaunchArgs& args) {
  if (absl::Status s = CheckWorkspace(problem, args); !s.ok()) return s;
  return DispatchFloat(problem.dtype, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const UnfusedBuffers<T> b = Buffers<T>(problem, args);
    constexpr auto kV = ElementwiseKind::kVectorized;
    const T* none = nullptr;
    // 0.5 * x * (1 + erf(x / sqrt(2))), one kernel per operator.
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.x, none, b.w0, b.n, ScaleOp{kInvSqrt2}, args));
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<1>(kV, b.w0, none, b.w1, b.n, ErfOp{}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.w1, none, b.w0, b.n, AddScalarOp{1.0f}, args));
    KBENCH_RETURN_IF_ERROR(
        LaunchElementwise<1>(kV, b.x, none, b.w1, b.n, ScaleOp{0.5f}, args));  // 0.5x
    KBENCH_RETURN_IF_ERROR(LaunchElementwise<2>(kV, b.w1, b.w0, b.out, b.n, MulOp{}, args));
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

}  // namespace kbench::kernels::cuda
