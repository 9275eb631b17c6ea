// An operation's kernel ABI, read off its Layout.
#include "kernels/abi.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/ops/collectives.h"

namespace kbench::kernels {
namespace {

// Dims take large primes and params (where their range allows) smaller ones, so that a tensor's
// element count factors uniquely into the names it depends on.
constexpr int64_t kDimPrimes[] = {101, 103, 107, 109, 113, 127, 131, 137};
constexpr int64_t kParamPrimes[] = {17, 19, 23, 29, 31, 37, 41, 43};
// A collective's world size in the probe: a prime apart from the others (the layout functions
// take any world size; only validation bounds it).
constexpr int kWorldSizePrime = 11;

struct Probe {
  Problem problem;
  std::vector<std::pair<std::string, int64_t>> factors;  // name -> its prime
};

Probe MakeProbe(const Operation& op) {
  Probe probe;
  probe.problem.op = op.name;
  probe.problem.variant = op.variants.empty() ? "" : op.variants.front().name;
  const std::vector<std::string> dims = AbiDimNames(op);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t prime = kDimPrimes[i % std::size(kDimPrimes)];
    probe.problem.shape.push_back(prime);
    probe.factors.emplace_back(dims[i], prime);
  }
  size_t next = 0;
  for (const ParamDesc& p : op.params) {
    int64_t value = p.default_value;
    for (size_t k = next; k < std::size(kParamPrimes); ++k) {
      if (kParamPrimes[k] >= p.min && kParamPrimes[k] <= p.max) {
        value = kParamPrimes[k];
        probe.factors.emplace_back(p.name, value);
        next = k + 1;
        break;
      }
    }
    probe.problem.params[p.name] = value;
  }
  return probe;
}

// "rows*cols" for 101*103; a leftover constant factor leads ("2*rows").
std::string Factor(int64_t elements, const Probe& probe) {
  std::vector<std::string> names;
  for (const auto& [name, prime] : probe.factors) {
    while (elements % prime == 0 && elements > 0) {
      names.push_back(name);
      elements /= prime;
    }
  }
  if (elements != 1 || names.empty()) names.insert(names.begin(), absl::StrCat(elements));
  return absl::StrJoin(names, "*");
}

// A collective's per-rank ABI (abi.h): the world size is a factor of the probe like a dim, so
// that all_gather's output reads "world_size*count".
std::vector<AbiArgument> CollectiveAbiOf(const Operation& op, const CollectiveDesc& c) {
  Probe probe = MakeProbe(op);
  probe.factors.insert(probe.factors.begin(), {"world_size", kWorldSizePrime});
  const Layout layout = CollectiveLayout(c, probe.problem, kWorldSizePrime);
  const std::string send = Factor(layout.inputs.at(0).elements, probe);
  const std::string recv = Factor(layout.outputs.at(0).elements, probe);
  std::vector<AbiArgument> abi = {
      {layout.inputs.at(0).name, AbiArgument::Kind::kInput, send},
      {layout.outputs.at(0).name, AbiArgument::Kind::kOutput, recv},
      {"peer_send", AbiArgument::Kind::kPeerInputs, send},
      {"peer_recv", AbiArgument::Kind::kPeerOutputs, recv},
      {"peer_flags", AbiArgument::Kind::kPeerFlags, absl::StrCat(kPeerFlagWords)},
  };
  for (const std::string& d : AbiDimNames(op)) abi.push_back({d, AbiArgument::Kind::kDim, ""});
  for (const ParamDesc& p : op.params) abi.push_back({p.name, AbiArgument::Kind::kParam, ""});
  abi.push_back({"call", AbiArgument::Kind::kCallIndex, ""});
  abi.push_back({"rank", AbiArgument::Kind::kRank, ""});
  abi.push_back({"world_size", AbiArgument::Kind::kWorldSize, ""});
  return abi;
}

}  // namespace

std::vector<std::string> AbiDimNames(const Operation& op) {
  if (AnyRank(op)) return {"n"};
  return op.dims;
}

std::vector<int64_t> AbiDimValues(const Operation& op, const Problem& problem) {
  if (!AnyRank(op)) return problem.shape;
  int64_t n = 1;
  for (int64_t d : problem.shape) n *= d;
  return {n};
}

std::map<std::string, int64_t> LaunchExpressionValues(const Operation& op, const Problem& problem) {
  std::map<std::string, int64_t> values;
  const std::vector<std::string> names = AbiDimNames(op);
  const std::vector<int64_t> dims = AbiDimValues(op, problem);
  for (size_t i = 0; i < names.size() && i < dims.size(); ++i) values[names[i]] = dims[i];
  for (const ParamDesc& p : op.params) {
    const auto it = problem.params.find(p.name);
    values[p.name] = it == problem.params.end() ? p.default_value : it->second;
  }
  return values;
}

std::vector<AbiArgument> KernelAbiOf(const Operation& op) {
  if (const CollectiveDesc* c = FindCollective(op.name); c != nullptr) {
    return CollectiveAbiOf(op, *c);
  }
  std::vector<AbiArgument> abi;
  const Probe probe = MakeProbe(op);
  const Layout layout = op.layout(probe.problem);
  for (const TensorSpec& t : layout.inputs) {
    abi.push_back({t.name, AbiArgument::Kind::kInput, Factor(t.elements, probe)});
  }
  for (const TensorSpec& t : layout.outputs) {
    abi.push_back({t.name, AbiArgument::Kind::kOutput, Factor(t.elements, probe)});
  }
  for (const std::string& d : AbiDimNames(op)) abi.push_back({d, AbiArgument::Kind::kDim, ""});
  for (const ParamDesc& p : op.params) abi.push_back({p.name, AbiArgument::Kind::kParam, ""});
  return abi;
}

std::string CudaElementType(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return "__half";
    case DType::kBF16:
      return "__nv_bfloat16";
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return "float";
}

}  // namespace kbench::kernels
