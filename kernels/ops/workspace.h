// The scratch device memory of the variants that need it, one function per operation, defined
// beside the operation's metadata (kernels/ops/<op>.cc). The catalogue's Layout (memory checks at
// submit, in the CUDA-free control plane) and the variant's launcher (kernels/cuda/<op>.cu) both
// call it, so a size is computed in one place, as CUTLASS's get_workspace_size is. Each returns 0
// for a variant that needs no workspace, and says how its bytes are laid out.
#pragma once

#include <cstdint>

#include "kernels/operation.h"

namespace kbench::kernels {

// gelu's *_unfused variants: two f32 intermediates of n elements each, one after the other (f32
// whatever the dtype: rounding them to f16/bf16 fails the check in the tails).
int64_t GeluWorkspaceBytes(const Problem& problem);

// softmax naive: f32 exponentials (rows x cols), then the row maxima (rows), then the row sums
// (rows).
int64_t SoftmaxWorkspaceBytes(const Problem& problem);

// The most blocks a full-sum variant launches: one f32 partial sum per block.
inline constexpr int64_t kReduceMaxPartials = 1024;
// reduce's full_* CUDA variants: kReduceMaxPartials f32 partials, then the single-pass variant's
// completion ticket (an unsigned, padded to 16 bytes).
int64_t ReduceWorkspaceBytes(const Problem& problem);

// Row pitches (in elements) at which matmul tensorcore reads A (m x k) and B (k x n): the copy
// engine needs pitches that are multiples of 16 bytes, so a k or n that is not a multiple of 8
// is rounded up and that operand copied into the workspace.
struct TensorCorePitches {
  int64_t lda = 0;
  int64_t ldb = 0;
};
TensorCorePitches MatmulTensorCorePitches(const Problem& problem);
// matmul tensorcore: the padded copy of A (m x lda) when lda != k, then that of B (k x ldb)
// when ldb != n, in the problem's dtype.
int64_t MatmulWorkspaceBytes(const Problem& problem);

// mlp's CUDA variants, all f32: pre-activations of every layer (layers x batch x dim), hidden
// activations of layers 1..layers-1 ((layers - 1) x batch x dim), the gradients w.r.t. a layer's
// output and pre-activation (batch x dim each), and batch ones for the bias-gradient GEMV.
int64_t MlpWorkspaceBytes(const Problem& problem);

}  // namespace kbench::kernels
