// mlp's CUDA variants: forward + backward of L x (Linear + GELU) with cuBLAS GEMMs (f32, or
// TF32 tensor cores) and small elementwise kernels; `unfused` launches one kernel per primitive
// as eager autograd does, `fused` merges bias + GELU and folds the mean's backward in.
#include <cublas_v2.h>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/cublas_util.h"
#include "kernels/cuda/variant_tables.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels::cuda {
namespace {
namespace {

constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;
constexpr int kThreads = 256;
constexpr float kOne = 1.0f;

__device__ __forceinline__ float Gelu(float z) { return 0.5f * z * (1.0f + erff(z * kInvSqrt2)); }
__device__ __forceinline__ float GeluGrad(float z) {
  return 0.5f * (1.0f + erff(z * kInvSqrt2)) + z * kInvSqrt2Pi * __expf(-0.5f * z * z);
}

// All elementwise kernels cover n = batch * dim elements with a grid-stride loop; column index
// i % dim picks the bias.
__global__ void FillKernel(float* __restrict__ p, int64_t n, float value) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    p[i] = value;
}

__global__ void BiasAddKernel(float* __restrict__ z, const float* __restrict__ bias, int64_t n,
                              int64_t dim) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    z[i] += bias[i % dim];
}

__global__ void GeluKernel(const float* __restrict__ z, float* __restrict__ h, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    h[i] = Gelu(z[i]);
}

__global__ void BiasGeluKernel(float* __restrict__ z, const float* __restrict__ bias,
                               float* __restrict__ h, int64_t n, int64_t dim) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float v = z[i] + bias[i % dim];
    z[i] = v;
    h[i] = Gelu(v);
  }
}

__global__ void GeluBackwardKernel(const float* __restrict__ g, const float* __restrict__ z,
                                   float* __restrict__ dz, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dz[i] = g[i] * GeluGrad(z[i]);
}

// The last layer's GELU backward with the mean's constant gradient folded in (no g read).
__global__ void GeluBackwardScaledKernel(const float* __restrict__ z, float* __restrict__ dz,
                                         int64_t n, float scale) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dz[i] = scale * GeluGrad(z[i]);
}

// Row-major buffers seen by column-major cuBLAS as their transposes (see each call).
struct Gemm {
  cublasHandle_t handle;
  cublasComputeType_t compute;
  absl::Status operator()(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                          int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                          int64_t ldb, float beta, float* c, int64_t ldc) const {
    KBENCH_CUBLAS_RETURN_IF_ERROR(cublasGemmEx(
        handle, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), &alpha, a,
        CUDA_R_32F, static_cast<int>(lda), b, CUDA_R_32F, static_cast<int>(ldb), &beta, c,
        CUDA_R_32F, static_cast<int>(ldc), compute, CUBLAS_GEMM_DEFAULT));
    return absl::OkStatus();
  }
};

absl::Status LaunchMlp(const Problem& problem, const LaunchArgs& args, bool fused) {
  if (args.cublas == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("mlp/", problem.variant, ": no cuBLAS handle in LaunchArgs"));
  }
  const int64_t B = problem.dim(0), d = problem.dim(1);
  const int64_t L = problem.param("layers"), steps = problem.param("steps");
  const int64_t n = B * d;
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(MlpWorkspaceBytes(problem), problem, args));
  const float* x = static_cast<const float*>(args.inputs[0]);
  const float* w = static_cast<const float*>(args.inputs[1]);
  const float* bias = static_cast<const float*>(args.inputs[2]);
  float* y = static_cast<float*>(args.outputs[0]);
  float* grad_w = static_cast<float*>(args.outputs[1]);
  float* grad_b = static_cast<float*>(args.outputs[2]);
  // The workspace in MlpWorkspaceBytes's order.
  float* z = static_cast<float*>(args.workspace);  // L x n pre-activations
  float* hidden = z + L * n;                       // (L-1) x n activations of layers 1..L-1
  float* g = hidden + (L - 1) * n;                 // gradient w.r.t. a layer's output
  float* dz = g + n;                               // gradient w.r.t. its pre-activation
  float* ones = dz + n;                            // B ones: bias gradient = dz^T * ones
  auto h = [&](int64_t l) -> float* {              // input of layer l (0-based), output of l-1
    return l == 0 ? const_cast<float*>(x) : (l == L ? y : hidden + (l - 1) * n);
  };
  const Gemm gemm{static_cast<cublasHandle_t>(args.cublas), problem.dtype == DType::kTF32
                                                                ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                : CUBLAS_COMPUTE_32F};
  const float alpha = 1.0f / std::sqrt(static_cast<float>(d));
  KBENCH_ASSIGN_OR_RETURN(const int sms, SmCount(args));
  const unsigned blocks =
      static_cast<unsigned>(std::min<int64_t>(CeilDiv(n, kThreads), int64_t{sms} * 8));
  cudaStream_t stream = args.stream;

  FillKernel<<<static_cast<unsigned>(std::min<int64_t>(CeilDiv(B, kThreads), 1024)), kThreads, 0,
               stream>>>(ones, B, 1.0f);
  KBENCH_CUDA_CHECK_LAUNCH("FillKernel");
  for (int64_t step = 0; step < steps; ++step) {
    // Forward. Row-major Z (B x d) = alpha H W^T + b is column-major Z^T = alpha W H^T: W's
    // buffer is column-major W^T (so OP_T), H's is H^T (OP_N).
    for (int64_t l = 0; l < L; ++l) {
      float* zl = z + l * n;
      KBENCH_RETURN_IF_ERROR(
          gemm(CUBLAS_OP_T, CUBLAS_OP_N, d, B, d, alpha, w + l * d * d, d, h(l), d, 0.0f, zl, d));
      if (fused) {
        BiasGeluKernel<<<blocks, kThreads, 0, stream>>>(zl, bias + l * d, h(l + 1), n, d);
        KBENCH_CUDA_CHECK_LAUNCH("BiasGeluKernel");
      } else {
        BiasAddKernel<<<blocks, kThreads, 0, stream>>>(zl, bias + l * d, n, d);
        KBENCH_CUDA_CHECK_LAUNCH("BiasAddKernel");
        GeluKernel<<<blocks, kThreads, 0, stream>>>(zl, h(l + 1), n);
        KBENCH_CUDA_CHECK_LAUNCH("GeluKernel");
      }
    }
    // Backward of mean(h_L): every element's gradient is 1 / (B d).
    const float mean_grad = 1.0f / static_cast<float>(n);
    if (!fused) {
      FillKernel<<<blocks, kThreads, 0, stream>>>(g, n, mean_grad);
      KBENCH_CUDA_CHECK_LAUNCH("FillKernel");
    }
    // The first step writes the gradients, later ones accumulate into them.
    const float accumulate = step == 0 ? 0.0f : 1.0f;
    for (int64_t l = L - 1; l >= 0; --l) {
      const float* zl = z + l * n;
      if (fused && l == L - 1) {
        GeluBackwardScaledKernel<<<blocks, kThreads, 0, stream>>>(zl, dz, n, mean_grad);
        KBENCH_CUDA_CHECK_LAUNCH("GeluBackwardScaledKernel");
      } else {
        GeluBackwardKernel<<<blocks, kThreads, 0, stream>>>(g, zl, dz, n);
        KBENCH_CUDA_CHECK_LAUNCH("GeluBackwardKernel");
      }
      // grad_b (d) = sum over the batch of dz: column-major dz^T (d x B) times ones.
      KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSgemv(gemm.handle, CUBLAS_OP_N, static_cast<int>(d),
                                                static_cast<int>(B), &kOne, dz, static_cast<int>(d),
                                                ones, 1, &accumulate, grad_b + l * d, 1));
      // Row-major dW (d x d) = alpha dz^T H is column-major dW^T = alpha H^T dz.
      KBENCH_RETURN_IF_ERROR(gemm(CUBLAS_OP_N, CUBLAS_OP_T, d, d, B, alpha, h(l), d, dz, d,
                                  accumulate, grad_w + l * d * d, d));
      // Row-major G (B x d) = alpha dz W is column-major G^T = alpha W^T dz^T.
      if (l > 0) {
        KBENCH_RETURN_IF_ERROR(
            gemm(CUBLAS_OP_N, CUBLAS_OP_N, d, B, d, alpha, w + l * d * d, d, dz, d, 0.0f, g, d));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LaunchMlpUnfused(const Problem& problem, const LaunchArgs& args) {
  return LaunchMlp(problem, args, /*fused=*/false);
}

absl::Status LaunchMlpFused(const Problem& problem, const LaunchArgs& args) {
  return LaunchMlp(problem, args, /*fused=*/true);
}

}  // namespace

CudaVariantTable MlpCudaVariants() {
  return {
      {"mlp", "unfused", LaunchMlpUnfused, /*needs_cublas=*/true},
      {"mlp", "fused", LaunchMlpFused, /*needs_cublas=*/true},
  };
}

}  // namespace kbench::kernels::cuda
