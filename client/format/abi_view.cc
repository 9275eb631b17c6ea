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

std::string Comment(const v1::AbiArgument& a) {
  if (IsTensor(a)) {
    return absl::StrCat(a.kind() == v1::AbiArgument::KIND_INPUT ? "input" : "output", ", ",
                        a.elements(), " elements");
  }
  return a.kind() == v1::AbiArgument::KIND_DIM ? "shape dim" : "param";
}

}  // namespace

std::string RenderCudaSignature(const v1::KernelInfo& kernel, v1::DType dtype) {
  const std::string type = ElementType(dtype);
  std::vector<std::string> lines;
  for (const v1::AbiArgument& a : kernel.abi().arguments()) {
    std::string decl;
    switch (a.kind()) {
      case v1::AbiArgument::KIND_INPUT:
        decl = absl::StrCat("const ", type, "* __restrict__ ", a.name());
        break;
      case v1::AbiArgument::KIND_OUTPUT:
        decl = absl::StrCat(type, "* __restrict__ ", a.name());
        break;
      default:
        decl = absl::StrCat("long long ", a.name());
        break;
    }
    lines.push_back(absl::StrCat("    ", decl, ",  // ", Comment(a)));
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
  return absl::StrCat(
      kernel.name(), " kernel ABI (", kernel.abi().layout(),
      "; dims and params are int64, in this order):\n\nCUDA C++:\n",
      RenderCudaSignature(kernel, dtype), "\nTriton:\n", RenderTritonSignature(kernel),
      "\nLaunch expressions (--grid, --block, --smem) may use the dims and params by name, "
      "integers, + - * / %, cdiv(a, b), min(a, b), max(a, b).\n");
}

}  // namespace kbench::client
