// Declarations of every CUDA variant's launch function, defined in kernels/cuda/<op>.cu and
// listed once in cuda_variants.cc. Plain C++ so that the list compiles without nvcc.
#pragma once

#include "absl/status/status.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/operation.h"

namespace kbench::kernels::cuda {

#define KBENCH_DECLARE_LAUNCH(name) \
  absl::Status name(const Problem& problem, const LaunchArgs& args)

// copy.cu
KBENCH_DECLARE_LAUNCH(LaunchCopyVectorized);
KBENCH_DECLARE_LAUNCH(LaunchCopyCudaMemcpy);
// square.cu
KBENCH_DECLARE_LAUNCH(LaunchSquareNaive2d);
KBENCH_DECLARE_LAUNCH(LaunchSquareGridStride);
KBENCH_DECLARE_LAUNCH(LaunchSquareVectorized);
// add.cu
KBENCH_DECLARE_LAUNCH(LaunchAddNaive);
KBENCH_DECLARE_LAUNCH(LaunchAddVectorized);
// gelu.cu
KBENCH_DECLARE_LAUNCH(LaunchGeluTanhUnfused);
KBENCH_DECLARE_LAUNCH(LaunchGeluTanhFused);
KBENCH_DECLARE_LAUNCH(LaunchGeluErfUnfused);
KBENCH_DECLARE_LAUNCH(LaunchGeluErfFused);
// softmax.cu
KBENCH_DECLARE_LAUNCH(LaunchSoftmaxNaive);
KBENCH_DECLARE_LAUNCH(LaunchSoftmaxFused);
KBENCH_DECLARE_LAUNCH(LaunchSoftmaxWarpPerRow);
KBENCH_DECLARE_LAUNCH(LaunchSoftmaxOnline);
// reduce.cu
KBENCH_DECLARE_LAUNCH(LaunchReduceRowsThread);
KBENCH_DECLARE_LAUNCH(LaunchReduceRowsWarp);
KBENCH_DECLARE_LAUNCH(LaunchReduceRowsBlock);
KBENCH_DECLARE_LAUNCH(LaunchReduceFullTwoPass);
KBENCH_DECLARE_LAUNCH(LaunchReduceFullSinglePass);
// matmul_naive.cu, matmul_tiled.cu, matmul_cublas.cu, matmul_register.cu, matmul_tensorcore.cu
KBENCH_DECLARE_LAUNCH(LaunchMatmulNaive);
KBENCH_DECLARE_LAUNCH(LaunchMatmulTiled);
KBENCH_DECLARE_LAUNCH(LaunchMatmulCublas);
KBENCH_DECLARE_LAUNCH(LaunchMatmulRegisterBlocked);
KBENCH_DECLARE_LAUNCH(LaunchMatmulTensorCore);
// mlp.cu
KBENCH_DECLARE_LAUNCH(LaunchMlpUnfused);
KBENCH_DECLARE_LAUNCH(LaunchMlpFused);

#undef KBENCH_DECLARE_LAUNCH

}  // namespace kbench::kernels::cuda
