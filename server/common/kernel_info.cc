// Catalogue -> KernelInfo for ListKernels.
#include "server/common/kernel_info.h"

#include <set>

#include "kernels/abi.h"
#include "server/common/spec_problem.h"

namespace kbench {
namespace {

v1::AbiArgument::Kind KindOf(kernels::AbiArgument::Kind kind) {
  switch (kind) {
    case kernels::AbiArgument::Kind::kInput:
      return v1::AbiArgument::KIND_INPUT;
    case kernels::AbiArgument::Kind::kOutput:
      return v1::AbiArgument::KIND_OUTPUT;
    case kernels::AbiArgument::Kind::kDim:
      return v1::AbiArgument::KIND_DIM;
    case kernels::AbiArgument::Kind::kParam:
      return v1::AbiArgument::KIND_PARAM;
    case kernels::AbiArgument::Kind::kPeerInputs:
      return v1::AbiArgument::KIND_PEER_INPUTS;
    case kernels::AbiArgument::Kind::kPeerOutputs:
      return v1::AbiArgument::KIND_PEER_OUTPUTS;
    case kernels::AbiArgument::Kind::kPeerFlags:
      return v1::AbiArgument::KIND_PEER_FLAGS;
    case kernels::AbiArgument::Kind::kCallIndex:
      return v1::AbiArgument::KIND_CALL_INDEX;
    case kernels::AbiArgument::Kind::kRank:
      return v1::AbiArgument::KIND_RANK;
    case kernels::AbiArgument::Kind::kWorldSize:
      return v1::AbiArgument::KIND_WORLD_SIZE;
  }
  return v1::AbiArgument::KIND_UNSPECIFIED;
}

void FillAbi(const kernels::Operation& op, v1::KernelAbi* abi) {
  for (const kernels::AbiArgument& a : kernels::KernelAbiOf(op)) {
    v1::AbiArgument* out = abi->add_arguments();
    out->set_name(a.name);
    out->set_kind(KindOf(a.kind));
    out->set_elements(a.elements);
  }
  abi->set_layout("row-major, contiguous");
}

}  // namespace

v1::KernelInfo KernelInfoOf(const kernels::Operation& op) {
  v1::KernelInfo k;
  k.set_name(op.name);
  k.set_description(op.description);
  for (const auto& d : op.dims) k.add_dims(d);
  for (int64_t d : op.default_shape) k.add_default_shape(d);
  k.set_cost_model(op.cost_model);
  std::set<int> dtypes;
  for (const kernels::VariantDesc& v : op.variants) {
    v1::VariantInfo* vi = k.add_variants();
    vi->set_name(v.name);
    vi->set_description(v.description);
    vi->add_device_kinds(v.backend == kernels::Backend::kHost ? v1::DEVICE_KIND_CPU
                                                              : v1::DEVICE_KIND_CUDA);
    for (kernels::DType d : v.dtypes) {
      vi->add_dtypes(DTypeToProto(d));
      dtypes.insert(DTypeToProto(d));
    }
  }
  for (int d : dtypes) k.add_dtypes(static_cast<v1::DType>(d));
  for (const kernels::ParamDesc& p : op.params) {
    v1::ParamInfo* pi = k.add_params();
    pi->set_name(p.name);
    pi->set_description(p.description);
    pi->set_min(p.min);
    pi->set_max(p.max);
    pi->set_default_value(p.default_value);
  }
  FillAbi(op, k.mutable_abi());
  return k;
}

}  // namespace kbench
