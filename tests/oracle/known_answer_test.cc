// Known-answer tests of the catalogue's float64 references: values worked out by hand or taken
// from tables (the normal CDF), so that a reference which agrees with a host variant sharing its
// definition still fails when the definition itself is wrong.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/catalogue.h"
#include "kernels/operation.h"

namespace kbench::kernels {
namespace {

// Standard normal CDF and density at 1 (Abramowitz & Stegun, table 26.1): Phi(1), phi(1).
constexpr double kPhiOf1 = 0.8413447460685429;
constexpr double kDensityAt1 = 0.24197072451914337;

// Runs op's reference for (variant, shape, params) on the given inputs.
HostTensors Reference(const std::string& op_name, const std::string& variant,
                      std::vector<int64_t> shape, const HostTensors& inputs,
                      std::map<std::string, int64_t> params = {}) {
  Problem p{.op = op_name, .variant = variant, .shape = std::move(shape), .params = params};
  const absl::Status s = ValidateProblem(&p);
  EXPECT_TRUE(s.ok()) << s;
  const Operation& op = *FindOperation(op_name);
  const Layout layout = op.layout(p);
  EXPECT_EQ(layout.inputs.size(), inputs.size());
  for (size_t t = 0; t < inputs.size() && t < layout.inputs.size(); ++t) {
    EXPECT_EQ(static_cast<int64_t>(inputs[t].size()), layout.inputs[t].elements) << "input " << t;
  }
  HostTensors out;
  for (const TensorSpec& t : layout.outputs) out.emplace_back(t.elements, -12345.0);
  op.reference(p, inputs, &out);
  return out;
}

TEST(CopyReference, ReturnsItsInput) {
  const std::vector<double> x = {1.5, -2.25, 3e-7};
  EXPECT_EQ(Reference("copy", "host_memcpy", {3}, {x})[0], x);
}

TEST(SquareReference, SquaresEachElement) {
  EXPECT_EQ(Reference("square", "host_loop", {3}, {{-3, 0.5, 2}})[0],
            (std::vector<double>{9, 0.25, 4}));
}

TEST(AddReference, AddsElementwise) {
  EXPECT_EQ(Reference("add", "host_loop", {2}, {{1, -2}, {10, 0.5}})[0],
            (std::vector<double>{11, -1.5}));
}

// Softmax is invariant to a row's shift, so a constant row is uniform; 1000 and -1000 overflow or
// underflow exp() unless the row max is subtracted first.
TEST(SoftmaxReference, ConstantRowIsUniformEvenWhereExpOverflows) {
  const int64_t cols = 7;
  std::vector<double> x;
  for (double v : {0.0, 3.5, 1000.0, -1000.0}) x.insert(x.end(), cols, v);
  const HostTensors out = Reference("softmax", "host_rowwise", {4, cols}, {x});
  for (double y : out[0]) {
    EXPECT_NEAR(y, 1.0 / cols, 1e-16);
  }
}

// softmax([a, a + 1]) = [1 / (1 + e), e / (1 + e)], the logistic function at -1 and 1.
TEST(SoftmaxReference, TwoElementRowIsLogistic) {
  const HostTensors out = Reference("softmax", "fused", {2, 2}, {{0, 1, 800, 801}});
  const double lo = 1 / (1 + std::exp(1.0)), hi = std::exp(1.0) / (1 + std::exp(1.0));
  for (int r = 0; r < 2; ++r) {
    EXPECT_NEAR(out[0][2 * r], lo, 1e-15) << "row " << r;
    EXPECT_NEAR(out[0][2 * r + 1], hi, 1e-15) << "row " << r;
  }
}

TEST(SoftmaxReference, SingleColumnIsOne) {
  EXPECT_EQ(Reference("softmax", "online", {3, 1}, {{-5, 0, 7}})[0],
            (std::vector<double>{1, 1, 1}));
}

// GELU(x) = x Phi(x) (Hendrycks & Gimpel 2016): 0 at 0, x for large x, 0 for large -x; the tanh
// approximation (their eq. for 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))) shares the limits.
void ExpectGeluLimits(const std::string& variant) {
  const HostTensors out = Reference("gelu", variant, {5}, {{0, 10, 30, -10, -30}});
  EXPECT_EQ(out[0][0], 0.0) << variant;
  EXPECT_NEAR(out[0][1], 10.0, 1e-13) << variant;
  EXPECT_NEAR(out[0][2], 30.0, 1e-13) << variant;
  EXPECT_NEAR(out[0][3], 0.0, 1e-15) << variant;
  EXPECT_NEAR(out[0][4], 0.0, 1e-15) << variant;
}

TEST(GeluReference, ErfFormIsZeroAtZeroIdentityForLargeXAndZeroForLargeNegativeX) {
  ExpectGeluLimits("erf_host");
}

TEST(GeluReference, TanhFormIsZeroAtZeroIdentityForLargeXAndZeroForLargeNegativeX) {
  ExpectGeluLimits("tanh_fused");
}

TEST(GeluReference, ErfFormAtOneIsTheNormalCdf) {
  const HostTensors out = Reference("gelu", "erf_fused", {2}, {{1, -1}});
  EXPECT_NEAR(out[0][0], kPhiOf1, 1e-15);
  EXPECT_NEAR(out[0][1], -(1 - kPhiOf1), 1e-15);
}

// 0.5 (1 + tanh(sqrt(2/pi) * 1.044715)), evaluated separately; differs from Phi(1) by 1.5e-4.
TEST(GeluReference, TanhFormAtOneIsTheApproximation) {
  const HostTensors out = Reference("gelu", "tanh_host", {1}, {{1}});
  EXPECT_NEAR(out[0][0], 0.8411919906082768, 1e-15);
}

TEST(MatmulReference, TwoByTwoByHand) {
  // [1 2; 3 4] [5 6; 7 8] = [1*5+2*7 1*6+2*8; 3*5+4*7 3*6+4*8].
  const HostTensors in = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  const std::vector<double> want = {19, 22, 43, 50};
  EXPECT_EQ(Reference("matmul", "host_naive", {2, 2, 2}, in)[0], want);
  Problem p{.op = "matmul", .variant = "cublas", .shape = {2, 2, 2}, .params = {}};
  ASSERT_TRUE(ValidateProblem(&p).ok());
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(FindOperation("matmul")->reference_element(p, in, 0, i), want[i]) << i;
  }
}

TEST(MatmulReference, RowTimesColumnIsADotProductAndColumnTimesRowAnOuterProduct) {
  EXPECT_EQ(Reference("matmul", "naive", {1, 1, 3}, {{1, 2, 3}, {4, 5, 6}})[0],
            (std::vector<double>{32}));
  // m=2, n=3, k=1: A is a column, B a row, row-major C[i][j] = a_i b_j.
  EXPECT_EQ(Reference("matmul", "tiled", {2, 3, 1}, {{2, -1}, {1, 10, 100}})[0],
            (std::vector<double>{2, 20, 200, -1, -10, -100}));
}

TEST(ReduceReference, RowSumsAndFullSumOfAKnownMatrix) {
  const HostTensors in = {{1, 2, 3, 4, 5, 6}};
  EXPECT_EQ(Reference("reduce", "rows_host", {2, 3}, in)[0], (std::vector<double>{6, 15}));
  EXPECT_EQ(Reference("reduce", "rows_warp", {3, 2}, in)[0], (std::vector<double>{3, 7, 11}));
  EXPECT_EQ(Reference("reduce", "full_two_pass", {2, 3}, in)[0], (std::vector<double>{21}));
}

// One layer, identity weights, dim 4 so the 1/sqrt(dim) scale is 1/2, and two equal batch rows:
// biases -x/2 put every pre-activation at 0, where GELU is 0 and its slope Phi(0) = 1/2. The loss
// mean(y) over 2 x 4 outputs gives dy = 1/8, so dz = 1/16; grad_b sums dz over the batch: 1/8;
// grad_W[o][i] = (1/2) sum_r dz[r][o] x[r][i] = x[i] / 16.
TEST(MlpReference, OneIdentityLayerAtZeroPreActivationByHand) {
  const std::vector<double> x = {2, -4, 6, 1, 2, -4, 6, 1};
  const std::vector<double> w = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const std::vector<double> b = {-1, 2, -3, -0.5};
  const HostTensors out =
      Reference("mlp", "host", {2, 4}, {x, w, b}, {{"layers", 1}, {"steps", 1}});
  EXPECT_EQ(out[0], std::vector<double>(8, 0.0));
  EXPECT_EQ(out[2], (std::vector<double>{0.125, 0.125, 0.125, 0.125}));
  for (int o = 0; o < 4; ++o) {
    for (int i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(out[1][o * 4 + i], x[i] / 16) << o << "," << i;
  }
}

// dim 1 (scale 1), W = [1], x = b = 1/2: z = 1, y = GELU(1) = Phi(1); dz = GELU'(1) =
// Phi(1) + phi(1); grad_b = dz, grad_W = dz x; two steps accumulate twice the gradients.
TEST(MlpReference, OneIdentityLayerAtOneByHandOverTwoSteps) {
  const HostTensors out =
      Reference("mlp", "fused", {1, 1}, {{0.5}, {1}, {0.5}}, {{"layers", 1}, {"steps", 2}});
  const double dz = kPhiOf1 + kDensityAt1;
  EXPECT_NEAR(out[0][0], kPhiOf1, 1e-15);
  EXPECT_NEAR(out[2][0], 2 * dz, 1e-15);
  EXPECT_NEAR(out[1][0], 2 * dz * 0.5, 1e-15);
}

// Two identity layers on zero biases at dim 1: y = GELU(GELU(x)), 0 at x = 0. The chain rule with
// GELU'(0) = 1/2: db_2 = 1/2 and db_1 = (1/2)(1/2) = 1/4; dW_2 = db_2 h_1 = 0, dW_1 = db_1 x = 0.
TEST(MlpReference, TwoIdentityLayersAtZeroByHand) {
  const HostTensors out =
      Reference("mlp", "unfused", {1, 1}, {{0}, {1, 1}, {0, 0}}, {{"layers", 2}, {"steps", 1}});
  EXPECT_EQ(out[0], (std::vector<double>{0}));
  EXPECT_EQ(out[1], (std::vector<double>{0, 0}));
  EXPECT_EQ(out[2], (std::vector<double>{0.25, 0.5}));
}

}  // namespace
}  // namespace kbench::kernels
