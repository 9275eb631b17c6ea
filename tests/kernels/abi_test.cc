// Every operation publishes a kernel ABI that matches its Layout: inputs, outputs, dims, params.
#include "kernels/abi.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "kernels/catalogue.h"
#include "kernels/ops/collectives.h"

namespace kbench::kernels {
namespace {

TEST(KernelAbi, EveryOperationListsItsTensorsDimsAndParamsInOrder) {
  for (const Operation& op : Catalogue()) {
    SCOPED_TRACE(op.name);
    if (FindCollective(op.name) != nullptr) continue;  // per rank: the test below
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

std::vector<std::string> Names(const std::vector<AbiArgument>& abi) {
  std::vector<std::string> names;
  for (const AbiArgument& a : abi) names.push_back(a.name);
  return names;
}

TEST(KernelAbi, ACollectiveTakesItsBuffersEveryRanksBuffersRankAndWorldSize) {
  const std::vector<AbiArgument> abi = KernelAbiOf(*FindOperation("all_reduce"));
  EXPECT_EQ(Names(abi),
            (std::vector<std::string>{"send", "recv", "peer_send", "peer_recv", "peer_flags",
                                      "count", "call", "rank", "world_size"}));
  using K = AbiArgument::Kind;
  const std::vector<K> kinds = {K::kInput,       K::kOutput,    K::kPeerInputs,
                                K::kPeerOutputs, K::kPeerFlags, K::kDim,
                                K::kCallIndex,   K::kRank,      K::kWorldSize};
  for (size_t i = 0; i < abi.size(); ++i) EXPECT_EQ(abi[i].kind, kinds[i]) << abi[i].name;
  EXPECT_EQ(abi[0].elements, "count");
  EXPECT_EQ(abi[2].elements, "count");
  EXPECT_EQ(abi[4].elements, absl::StrCat(kPeerFlagWords));
}

TEST(KernelAbi, ACollectivesWorldSizedBufferCountsTheWorld) {
  const std::vector<AbiArgument> gather = KernelAbiOf(*FindOperation("all_gather"));
  EXPECT_EQ(gather[0].elements, "count");
  EXPECT_EQ(gather[1].elements, "world_size*count");
  const std::vector<AbiArgument> scatter = KernelAbiOf(*FindOperation("reduce_scatter"));
  EXPECT_EQ(scatter[0].elements, "world_size*count");
  EXPECT_EQ(scatter[1].elements, "count");
  const std::vector<AbiArgument> p2p = KernelAbiOf(*FindOperation("p2p"));
  EXPECT_EQ(p2p[6].name, "peer_shift");
  EXPECT_EQ(p2p[6].kind, AbiArgument::Kind::kParam);
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
