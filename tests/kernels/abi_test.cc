// Every operation publishes a kernel ABI that matches its Layout: inputs, outputs, dims, params.
#include "kernels/abi.h"

#include <gtest/gtest.h>

#include "kernels/catalogue.h"

namespace kbench::kernels {
namespace {

TEST(KernelAbi, EveryOperationListsItsTensorsDimsAndParamsInOrder) {
  for (const Operation& op : Catalogue()) {
    SCOPED_TRACE(op.name);
    Problem p;
    p.op = op.name;
    p.variant = op.variants.front().name;
    p.shape = op.default_shape;
    for (const ParamDesc& d : op.params) p.params[d.name] = d.default_value;
    const Layout layout = op.layout(p);
    const std::vector<AbiArgument> abi = KernelAbiOf(op);
    const std::vector<std::string> dims = AbiDimNames(op);
    ASSERT_EQ(abi.size(),
              layout.inputs.size() + layout.outputs.size() + dims.size() + op.params.size());
    size_t i = 0;
    for (const TensorSpec& t : layout.inputs) {
      EXPECT_EQ(abi[i].name, t.name);
      EXPECT_EQ(abi[i].kind, AbiArgument::Kind::kInput);
      EXPECT_FALSE(abi[i++].elements.empty());
    }
    for (const TensorSpec& t : layout.outputs) {
      EXPECT_EQ(abi[i].name, t.name);
      EXPECT_EQ(abi[i++].kind, AbiArgument::Kind::kOutput);
    }
    for (const std::string& d : dims) {
      EXPECT_EQ(abi[i].name, d);
      EXPECT_EQ(abi[i++].kind, AbiArgument::Kind::kDim);
    }
    for (const ParamDesc& d : op.params) {
      EXPECT_EQ(abi[i].name, d.name);
      EXPECT_EQ(abi[i++].kind, AbiArgument::Kind::kParam);
    }
  }
}

TEST(KernelAbi, ElementCountsAreProductsOfDims) {
  const std::vector<AbiArgument> softmax = KernelAbiOf(*FindOperation("softmax"));
  ASSERT_EQ(softmax.size(), 4u);
  EXPECT_EQ(softmax[0].name, "in");
  EXPECT_EQ(softmax[0].elements, "rows*cols");
  EXPECT_EQ(softmax[1].name, "out");
  EXPECT_EQ(softmax[1].elements, "rows*cols");
  EXPECT_EQ(softmax[2].name, "rows");
  EXPECT_EQ(softmax[3].name, "cols");
}

TEST(KernelAbi, OperationsOfAnyRankTakeTheElementCount) {
  const Operation& square = *FindOperation("square");
  EXPECT_EQ(AbiDimNames(square), std::vector<std::string>{"n"});
  Problem p;
  p.op = "square";
  p.shape = {3, 5, 7};
  EXPECT_EQ(AbiDimValues(square, p), std::vector<int64_t>{105});
  EXPECT_EQ(LaunchExpressionValues(square, p).at("n"), 105);
  const std::vector<AbiArgument> abi = KernelAbiOf(square);
  EXPECT_EQ(abi.front().elements, "n");
}

TEST(KernelAbi, LaunchValuesIncludeParamsWithDefaults) {
  const Operation& mlp = *FindOperation("mlp");
  Problem p;
  p.op = "mlp";
  p.shape = mlp.default_shape;
  const std::map<std::string, int64_t> values = LaunchExpressionValues(mlp, p);
  for (const ParamDesc& d : mlp.params) EXPECT_EQ(values.at(d.name), d.default_value) << d.name;
  for (const std::string& d : mlp.dims) EXPECT_TRUE(values.count(d)) << d;
}

TEST(KernelAbi, ElementTypes) {
  EXPECT_EQ(CudaElementType(DType::kF32), "float");
  EXPECT_EQ(CudaElementType(DType::kTF32), "float");
  EXPECT_EQ(CudaElementType(DType::kF16), "__half");
  EXPECT_EQ(CudaElementType(DType::kBF16), "__nv_bfloat16");
}

}  // namespace
}  // namespace kbench::kernels
