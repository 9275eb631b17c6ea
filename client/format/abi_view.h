// An operation's kernel ABI (KernelInfo.abi) as the signatures a user writes: a CUDA C
// __global__ declaration and a Triton @triton.jit def (issue 10, item 1; kbctl kernels OP --abi).
#pragma once

#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::client {

// `extern "C" __global__ void ENTRY(const float* __restrict__ in, ..., long long rows, ...)`
// with one comment line per tensor giving its element count, for `dtype`.
std::string RenderCudaSignature(const v1::KernelInfo& kernel, v1::DType dtype);
// `@triton.jit\ndef ENTRY(in_ptr, out_ptr, rows, cols, ...)` with the same comments.
std::string RenderTritonSignature(const v1::KernelInfo& kernel);
// Both, with the layout line: what `kbctl kernels OP --abi` prints.
std::string RenderAbi(const v1::KernelInfo& kernel, v1::DType dtype);

}  // namespace kbench::client
