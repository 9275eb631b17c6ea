// The kernel ABI an operation publishes for users' own variants (issue 10): the arguments in call
// order (input pointers, then output pointers, in the Layout's order; then the shape dims as
// int64; then the params as int64, in ParamDesc order), tensors row-major and contiguous in the
// problem's dtype. The executor launches user kernels with exactly these arguments.
//
// A collective's (issue 30) is per rank: this rank's input and output, then every rank's input,
// output and barrier flags by rank (device pointers valid on this rank: peer access is enabled
// between every pair of the gang's devices), then count and params, then the call's index,
// this rank and the world size (KernelAbiOf lists them; kbctl renders the CUDA signature).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/operation.h"

namespace kbench::kernels {

struct AbiArgument {
  // kPeer*: arrays of world_size device pointers, by rank. kCallIndex, kRank, kWorldSize: int.
  enum class Kind {
    kInput,
    kOutput,
    kDim,
    kParam,
    kPeerInputs,
    kPeerOutputs,
    kPeerFlags,
    kCallIndex,
    kRank,
    kWorldSize,
  };
  std::string name;
  Kind kind = Kind::kInput;
  // Tensors: the element count as a product of dims and params (e.g. "rows*cols"), found by
  // evaluating the Layout on a shape of distinct primes; empty for scalars.
  std::string elements;
};

// The int64 dims a kernel receives, in order: the operation's dims, or {"n"} (the element
// count) for an operation of any rank (dims {"elements..."}), whose layout is flat.
std::vector<std::string> AbiDimNames(const Operation& op);
// Their values for `problem`.
std::vector<int64_t> AbiDimValues(const Operation& op, const Problem& problem);
// The names a launch expression may use and their values for `problem`: the ABI's dims, then the
// params (those the problem lacks take their defaults).
std::map<std::string, int64_t> LaunchExpressionValues(const Operation& op, const Problem& problem);

// The operation's ABI. Tensor names and counts come from its Layout (fixed per operation); a
// collective's counts are over `count` and `world_size`, from kernels::CollectiveLayout.
std::vector<AbiArgument> KernelAbiOf(const Operation& op);

// The CUDA C type of one element of `dtype` ("float", "__half", "__nv_bfloat16"; TF32 data is
// stored as float).
std::string CudaElementType(DType dtype);

}  // namespace kbench::kernels
