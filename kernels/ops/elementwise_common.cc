// Shared pieces of the elementwise operations.
#include "kernels/ops/elementwise_common.h"

namespace kbench::kernels {

int64_t ElementCount(const Problem& problem) {
  int64_t n = 1;
  for (int64_t d : problem.shape) n *= d;
  return n;
}

Layout ElementwiseLayout(const Problem& problem, const std::vector<std::string>& input_names) {
  Layout layout;
  const int64_t n = ElementCount(problem);
  for (const auto& name : input_names) layout.inputs.push_back({name, n});
  layout.outputs.push_back({"out", n});
  return layout;
}

int64_t ElementwiseBytes(const Problem& problem, int inputs) {
  return (inputs + 1) * ElementCount(problem) * static_cast<int64_t>(StorageBytes(problem.dtype));
}

std::vector<DType> FloatDTypes() { return {DType::kF32, DType::kF16, DType::kBF16}; }

}  // namespace kbench::kernels
