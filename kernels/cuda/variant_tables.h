// Each CUDA source's table of the variants it defines (op, variant, launch function), concatenated
// by cuda_variants.cc from one explicit list. Explicit calls, not static registration: the linker
// drops objects of a static library that nothing references. Plain C++ so that the list compiles
// without nvcc. Adding a variant touches its .cu table and its operation's metadata only.
#pragma once

#include <vector>

#include "kernels/cuda/cuda_variants.h"

namespace kbench::kernels::cuda {

using CudaVariantTable = std::vector<CudaVariant>;

CudaVariantTable CopyCudaVariants();                   // copy.cu
CudaVariantTable SquareCudaVariants();                 // square.cu
CudaVariantTable AddCudaVariants();                    // add.cu
CudaVariantTable GeluCudaVariants();                   // gelu.cu
CudaVariantTable SoftmaxCudaVariants();                // softmax.cu
CudaVariantTable ReduceCudaVariants();                 // reduce.cu
CudaVariantTable MatmulNaiveCudaVariants();            // matmul_naive.cu
CudaVariantTable MatmulTiledCudaVariants();            // matmul_tiled.cu
CudaVariantTable MatmulRegisterBlockedCudaVariants();  // matmul_register.cu
CudaVariantTable MatmulTensorCoreCudaVariants();       // matmul_tensorcore.cu (sm_90a)
CudaVariantTable MatmulCublasCudaVariants();           // matmul_cublas.cu
CudaVariantTable MlpCudaVariants();                    // mlp.cu

}  // namespace kbench::kernels::cuda
