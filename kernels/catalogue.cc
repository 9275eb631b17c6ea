// The catalogue's one list of operations and the generic validation of a problem.
#include "kernels/catalogue.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/ops/ops.h"

namespace kbench::kernels {
namespace {

constexpr size_t kMaxAnyRank = 4;
// No single dimension beyond 2^31 - 1: kernels index rows and columns with 32-bit grids.
constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
// No tensor beyond 2^40 elements (4 TiB of f32), far past any device, so byte counts never
// overflow int64.
constexpr int64_t kMaxElements = int64_t{1} << 40;

std::string ShapeString(const std::vector<int64_t>& shape) { return absl::StrJoin(shape, "x"); }

std::vector<DType> OperationDTypes(const Operation& op) {
  std::vector<DType> all;
  for (const VariantDesc& v : op.variants) {
    for (DType d : v.dtypes) {
      if (std::find(all.begin(), all.end(), d) == all.end()) all.push_back(d);
    }
  }
  return all;
}

}  // namespace

bool IsUserVariantName(const std::string& variant) { return !variant.empty() && variant[0] == '@'; }

const std::vector<Operation>& Catalogue() {
  static const std::vector<Operation>* catalogue = [] {
    auto* ops = new std::vector<Operation>{
        MakeCopyOp(),    MakeSquareOp(), MakeAddOp(),    MakeGeluOp(),
        MakeSoftmaxOp(), MakeReduceOp(), MakeMatmulOp(), MakeMlpOp(),
    };
    for (Operation& op : MakeCollectiveOps()) ops->push_back(std::move(op));
    return ops;
  }();
  return *catalogue;
}

const Operation* FindOperation(const std::string& name) {
  for (const Operation& op : Catalogue()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const VariantDesc* Operation::FindVariant(const std::string& variant) const {
  for (const VariantDesc& v : variants) {
    if (v.name == variant) return &v;
  }
  return nullptr;
}

double DefaultTolerance(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 1e-5;
    case DType::kTF32:
      return 5e-3;
    case DType::kF16:
      return 2e-3;  // output rounding: 2^-11 relative
    case DType::kBF16:
      return 1e-2;  // output rounding: 2^-8 relative
  }
  return 1e-5;
}

absl::Status ValidateProblem(Problem* problem) {
  if (problem->op.empty()) return absl::InvalidArgumentError("kernel: must not be empty");
  const Operation* op = FindOperation(problem->op);
  if (op == nullptr) {
    std::vector<std::string> names;
    for (const Operation& o : Catalogue()) names.push_back(o.name);
    return absl::InvalidArgumentError(absl::StrCat("kernel: unknown operation '", problem->op,
                                                   "' (known: ", absl::StrJoin(names, ", "), ")"));
  }
  const VariantDesc* variant = op->FindVariant(problem->variant);
  const bool user_variant = IsUserVariantName(problem->variant);
  if (variant == nullptr && !user_variant) {
    std::vector<std::string> names;
    for (const VariantDesc& v : op->variants) names.push_back(v.name);
    return absl::InvalidArgumentError(absl::StrCat("variants: unknown variant '", problem->variant,
                                                   "' of ", op->name,
                                                   " (known: ", absl::StrJoin(names, ", "), ")"));
  }
  if (problem->shape.empty()) problem->shape = op->default_shape;
  const bool any_rank = AnyRank(*op);
  if (any_rank ? problem->shape.size() > kMaxAnyRank : problem->shape.size() != op->dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape: ", op->name, " takes ",
        any_rank ? absl::StrCat("1 to ", kMaxAnyRank, " dims")
                 : absl::StrCat(op->dims.size(), " dims (", absl::StrJoin(op->dims, "x"), ")"),
        ", got '", ShapeString(problem->shape), "'"));
  }
  int64_t elements = 1;
  for (size_t i = 0; i < problem->shape.size(); ++i) {
    const int64_t d = problem->shape[i];
    const std::string dim_name = any_rank ? absl::StrCat("dim ", i) : op->dims[i];
    if (d <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape: ", dim_name, " must be positive, got ", d));
    }
    if (d > kMaxDim) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape: ", dim_name, " = ", d, " exceeds the limit of ", kMaxDim));
    }
    if (elements > kMaxElements / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape: '", ShapeString(problem->shape), "' has more than 2^40 elements"));
    }
    elements *= d;
  }
  // A user variant may take any dtype some catalogue variant of the operation takes.
  const std::vector<DType> dtypes = user_variant ? OperationDTypes(*op) : variant->dtypes;
  bool dtype_ok = false;
  for (DType d : dtypes) dtype_ok |= d == problem->dtype;
  if (!dtype_ok) {
    std::vector<std::string> names;
    for (DType d : dtypes) names.emplace_back(DTypeName(d));
    return absl::InvalidArgumentError(
        absl::StrCat("dtype: ", op->name, "/", problem->variant, " does not support ",
                     DTypeName(problem->dtype), " (supported: ", absl::StrJoin(names, ", "), ")"));
  }
  for (const auto& [name, value] : problem->params) {
    bool known = false;
    for (const ParamDesc& p : op->params) known |= p.name == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("params: ", op->name, " has no parameter '", name, "'"));
    }
  }
  for (const ParamDesc& p : op->params) {
    auto it = problem->params.find(p.name);
    if (it == problem->params.end()) {
      problem->params[p.name] = p.default_value;
      continue;
    }
    if (it->second < p.min || it->second > p.max) {
      return absl::InvalidArgumentError(absl::StrCat("params: ", p.name, " = ", it->second,
                                                     " is outside [", p.min, ", ", p.max, "]"));
    }
  }
  if (op->validate) return op->validate(*problem);
  return absl::OkStatus();
}

int64_t MemoryFootprint(const Problem& problem) {
  const Operation* op = FindOperation(problem.op);
  if (op == nullptr) return 0;
  const Layout layout = op->layout(problem);
  int64_t elements = 0;
  for (const TensorSpec& t : layout.inputs) elements += t.elements;
  for (const TensorSpec& t : layout.outputs) elements += t.elements;
  return elements * static_cast<int64_t>(StorageBytes(problem.dtype)) + layout.workspace_bytes;
}

}  // namespace kbench::kernels
