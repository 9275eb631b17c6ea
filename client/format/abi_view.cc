// Kernel ABI -> CUDA C and Triton signatures.
#include "client/format/abi_view.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::client {
namespace {

std::string ElementType(v1::DType dtype) {
  switch (dtype) {
    case v1::DTYPE_F16:
      return "__half";
    case v1::DTYPE_BF16:
      return "__nv_bfloat16";
    default:
      return "float";
  }
}

std::string EntryName(const v1::KernelInfo& kernel) { return kernel.name() + "_kernel"; }

bool IsTensor(const v1::AbiArgument& a) {
  return a.kind() == v1::AbiArgument::KIND_INPUT || a.kind() == v1::AbiArgument::KIND_OUTPUT;
}

// A collective's ABI (issue 30) carries every rank's buffers and the rank and world size.
bool IsCollective(const v1::KernelInfo& kernel) {
  for (const v1::AbiArgument& a : kernel.abi().arguments()) {
    if (a.kind() == v1::AbiArgument::KIND_WORLD_SIZE) return true;
  }
  return false;
}

std::string Comment(const v1::AbiArgument& a) {
  switch (a.kind()) {
    case v1::AbiArgument::KIND_INPUT:
      return absl::StrCat("input, ", a.elements(), " elements");
    case v1::AbiArgument::KIND_OUTPUT:
      return absl::StrCat("output, ", a.elements(), " elements");
    case v1::AbiArgument::KIND_DIM:
      return "shape dim";
    case v1::AbiArgument::KIND_PEER_INPUTS:
      return absl::StrCat("every rank's input by rank (", a.elements(), " elements each)");
    case v1::AbiArgument::KIND_PEER_OUTPUTS:
      return absl::StrCat("every rank's output by rank (", a.elements(), " elements each)");
    case v1::AbiArgument::KIND_PEER_FLAGS:
      return absl::StrCat("every rank's barrier flags by rank (", a.elements(),
                          " words each, zero before the first call)");
    case v1::AbiArgument::KIND_CALL_INDEX:
      return "1 for the first call, +1 per call, the same on every rank";
    case v1::AbiArgument::KIND_RANK:
      return "this rank, 0 .. world_size-1";
    case v1::AbiArgument::KIND_WORLD_SIZE:
      return "ranks in the job";
    default:
      return "param";
  }
}

std::string Declaration(const v1::AbiArgument& a, const std::string& type) {
  switch (a.kind()) {
    case v1::AbiArgument::KIND_INPUT:
      return absl::StrCat("const ", type, "* __restrict__ ", a.name());
    case v1::AbiArgument::KIND_OUTPUT:
      return absl::StrCat(type, "* __restrict__ ", a.name());
    case v1::AbiArgument::KIND_PEER_INPUTS:
      return absl::StrCat("const ", type, "* const* ", a.name());
    case v1::AbiArgument::KIND_PEER_OUTPUTS:
      return absl::StrCat(type, "* const* ", a.name());
    case v1::AbiArgument::KIND_PEER_FLAGS:
      return absl::StrCat("unsigned int* const* ", a.name());
    case v1::AbiArgument::KIND_CALL_INDEX:
      return absl::StrCat("unsigned int ", a.name());
    case v1::AbiArgument::KIND_RANK:
    case v1::AbiArgument::KIND_WORLD_SIZE:
      return absl::StrCat("int ", a.name());
    default:
      return absl::StrCat("long long ", a.name());
  }
}

// How a collective's rank meets its peers: what its signature alone cannot say.
constexpr char kCollectiveContract[] =
    "\nPer rank: the executor launches this kernel on every rank's own device and stream, each\n"
    "with its own send/recv and rank. peer_* are device arrays of world_size pointers (peer\n"
    "access is on between every pair of the job's devices), so rank r reads rank s's input as\n"
    "peer_send[s]. No rank may read a peer's buffer before that peer has started the call:\n"
    "meet at a barrier first, e.g. write a value that grows with `call` into every peer's\n"
    "peer_flags[s][rank] (st.release.sys) and wait for yours (ld.acquire.sys). Inputs and\n"
    "outputs change only while every rank is idle. Every rank's output is checked.\n";

}  // namespace

std::string RenderCudaSignature(const v1::KernelInfo& kernel, v1::DType dtype) {
  const std::string type = ElementType(dtype);
  std::vector<std::string> lines;
  for (const v1::AbiArgument& a : kernel.abi().arguments()) {
    lines.push_back(absl::StrCat("    ", Declaration(a, type), ",  // ", Comment(a)));
  }
  if (!lines.empty()) {
    std::string& last = lines.back();
    last.erase(last.find(",  //"), 1);  // no comma after the last argument
  }
  return absl::StrCat("extern \"C\" __global__ void ", EntryName(kernel), "(\n",
                      absl::StrJoin(lines, "\n"), "\n);\n");
}

std::string RenderTritonSignature(const v1::KernelInfo& kernel) {
  std::vector<std::string> lines;
  for (const v1::AbiArgument& a : kernel.abi().arguments()) {
    const std::string name = IsTensor(a) ? absl::StrCat(a.name(), "_ptr") : a.name();
    lines.push_back(absl::StrCat("    ", name, ",  # ", Comment(a)));
  }
  return absl::StrCat("@triton.jit\ndef ", EntryName(kernel), "(\n", absl::StrJoin(lines, "\n"),
                      "\n    # constexpr block sizes may follow; Triton 3.x appends its scratch\n"
                      "    # pointers itself (give their count as trailing_null_pointers)\n):\n");
}

std::string RenderAbi(const v1::KernelInfo& kernel, v1::DType dtype) {
  if (IsCollective(kernel)) {
    return absl::StrCat(kernel.name(), " kernel ABI, one launch per rank (", kernel.abi().layout(),
                        "; dims and params are int64, in this order):\n\nCUDA C++:\n",
                        RenderCudaSignature(kernel, dtype), kCollectiveContract);
  }
  return absl::StrCat(
      kernel.name(), " kernel ABI (", kernel.abi().layout(),
      "; dims and params are int64, in this order):\n\nCUDA C++:\n",
      RenderCudaSignature(kernel, dtype), "\nTriton:\n", RenderTritonSignature(kernel),
      "\nLaunch expressions (--grid, --block, --smem) may use the dims and params by name, "
      "integers, + - * / %, cdiv(a, b), min(a, b), max(a, b).\n");
}

}  // namespace kbench::client
