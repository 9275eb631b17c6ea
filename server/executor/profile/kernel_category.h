// Which kind of work a kernel does (pointwise, reduction, GEMM, copy/memset, other), for the
// profile's breakdown by category, as Inductor's kernel breakdown groups kernels.
#pragma once

#include <string>
#include <vector>

namespace kbench::executor::profile {

inline constexpr char kCategoryPointwise[] = "pointwise";
inline constexpr char kCategoryReduction[] = "reduction";
inline constexpr char kCategoryGemm[] = "GEMM";
inline constexpr char kCategoryCopy[] = "copy/memset";
inline constexpr char kCategoryOther[] = "other";

// The category of a kernel, from its (demangled) name first and the catalogue operation it
// ran for second. The first rule that matches wins:
//  1. Inductor's prefixes: triton_poi → pointwise, triton_red / triton_per → reduction,
//     triton_tem → GEMM (its templated matmuls).
//  2. GEMM: the name mentions gemm, gemv, matmul, cutlass, cublas, nvjet (cuBLAS 12.8+),
//     xmma/hmma/wgmma, or a word mm / bmm / addmm.
//  3. copy/memset: a word memcpy, memset, copy or fill (a kernel doing a copy engine's work).
//  4. reduction: a word reduce, reduction, sum, max, min, mean, argmax, argmin, norm,
//     layernorm, rmsnorm, logsumexp, welford, scan, histogram.
//  5. pointwise: a word elementwise, pointwise, vectorized, unrolled, add, sub, subtract, mul,
//     div, divide, exp, square, gelu, relu, silu, sigmoid, tanh, erf, scale, cast, bias.
//     (So the steps of a naive softmax split: SoftmaxRowMax → reduction, SoftmaxExp →
//     pointwise.)
//  6. a word naming a reducing operation as a whole: softmax, logsoftmax, attention →
//     reduction (SoftmaxFusedKernel).
//  7. the catalogue operation: copy → copy/memset; square, add, gelu → pointwise; softmax and
//     names containing norm / reduce → reduction; matmul, gemm → GEMM.
//  8. other.
// "Words" are the kernel's own name (namespaces, template and call arguments dropped) split
// at '_', digits and camelCase boundaries, lower-cased: SoftmaxRowMaxKernel → softmax, row,
// max, kernel.
std::string CategorizeKernel(const std::string& operation, const std::string& demangled_name);

// The words of a kernel's own name, as CategorizeKernel splits them (exposed for tests).
std::vector<std::string> KernelNameWords(const std::string& demangled_name);

// The kernel's own name: "ns::Foo<int>(float*, int)" → "Foo".
std::string KernelBaseName(const std::string& demangled_name);

}  // namespace kbench::executor::profile
