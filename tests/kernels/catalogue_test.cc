// CPU tests of the kernel catalogue: problem validation names the field, every host variant
// matches its float64 reference on odd shapes and the cost models.
#include "kernels/catalogue.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/check.h"
#include "kernels/ops/collectives.h"
#include "kernels/random.h"

namespace kbench::kernels {
namespace {

Problem MakeProblem(const std::string& op, const std::string& variant, std::vector<int64_t> shape,
                    DType dtype = DType::kF32) {
  Problem p;
  p.op = op;
  p.variant = variant;
  p.shape = std::move(shape);
  p.dtype = dtype;
  return p;
}

// Expects INVALID_ARGUMENT whose message starts with the field's name.
void ExpectInvalid(Problem p, const std::string& field) {
  const absl::Status s = ValidateProblem(&p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message().substr(0, field.size() + 1), field + ":") << s;
}

TEST(ValidateProblem, RejectsEmptyKernelNamingKernel) {
  ExpectInvalid(MakeProblem("", "x", {4}), "kernel");
}

TEST(ValidateProblem, RejectsUnknownKernelNamingKernelAndValue) {
  Problem p = MakeProblem("transpose", "naive", {4});
  const absl::Status s = ValidateProblem(&p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("kernel: unknown operation 'transpose'"), std::string::npos) << s;
}

TEST(ValidateProblem, RejectsUnknownVariantNamingVariants) {
  ExpectInvalid(MakeProblem("copy", "warp_magic", {4}), "variants");
}

TEST(ValidateProblem, RejectsWrongRankNamingShape) {
  ExpectInvalid(MakeProblem("matmul", "naive", {4, 4}), "shape");
  ExpectInvalid(MakeProblem("softmax", "fused", {4, 4, 4}), "shape");
  ExpectInvalid(MakeProblem("copy", "vectorized", {2, 2, 2, 2, 2}), "shape");
}

TEST(ValidateProblem, RejectsNonPositiveDimNamingTheDim) {
  Problem p = MakeProblem("matmul", "naive", {4, 0, 4});
  const absl::Status s = ValidateProblem(&p);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("shape: n must be positive, got 0"), std::string::npos) << s;
  ExpectInvalid(MakeProblem("square", "vectorized", {-3}), "shape");
}

TEST(ValidateProblem, RejectsOverflowingShapeNamingShape) {
  ExpectInvalid(MakeProblem("copy", "vectorized", {1 << 30, 1 << 30, 1 << 30}), "shape");
  ExpectInvalid(MakeProblem("copy", "vectorized", {int64_t{1} << 32}), "shape");
}

TEST(ValidateProblem, RejectsUnsupportedDtypeNamingDtype) {
  ExpectInvalid(MakeProblem("matmul", "naive", {4, 4, 4}, DType::kBF16), "dtype");
  ExpectInvalid(MakeProblem("copy", "host_memcpy", {4}, DType::kF16), "dtype");
}

TEST(ValidateProblem, RejectsUnknownParamNamingParams) {
  Problem p = MakeProblem("copy", "vectorized", {4});
  p.params["layers"] = 2;
  ExpectInvalid(p, "params");
}

TEST(ValidateProblem, FillsDefaultShapeWhenEmpty) {
  Problem p = MakeProblem("softmax", "fused", {});
  ASSERT_TRUE(ValidateProblem(&p).ok());
  EXPECT_EQ(p.shape, FindOperation("softmax")->default_shape);
}

TEST(ValidateProblem, AcceptsEveryVariantAtItsDefaultShapeAndFirstDtype) {
  for (const Operation& op : Catalogue()) {
    for (const VariantDesc& v : op.variants) {
      ASSERT_FALSE(v.dtypes.empty()) << op.name << "/" << v.name;
      Problem p = MakeProblem(op.name, v.name, {}, v.dtypes.front());
      const absl::Status s = ValidateProblem(&p);
      EXPECT_TRUE(s.ok()) << op.name << "/" << v.name << ": " << s;
    }
  }
}

// ---- metadata --------------------------------------------------------------------------------

TEST(Catalogue, EveryVariantHasADescriptionAndDtypes) {
  for (const Operation& op : Catalogue()) {
    EXPECT_FALSE(op.description.empty()) << op.name;
    EXPECT_FALSE(op.cost_model.empty()) << op.name;
    EXPECT_TRUE(op.layout && op.cost && op.tolerance) << op.name;
    // A collective's reference is per rank, from every rank's inputs (kernels/ops/collectives.h).
    const CollectiveDesc* collective = FindCollective(op.name);
    EXPECT_TRUE(collective != nullptr ? static_cast<bool>(collective->reference)
                                      : static_cast<bool>(op.reference))
        << op.name;
    for (const VariantDesc& v : op.variants) {
      EXPECT_FALSE(v.description.empty()) << op.name << "/" << v.name;
      EXPECT_FALSE(v.dtypes.empty()) << op.name << "/" << v.name;
    }
  }
}

TEST(Catalogue, HostVariantsAndHostRunsMatchOneToOne) {
  for (const Operation& op : Catalogue()) {
    std::set<std::string> host;
    for (const VariantDesc& v : op.variants) {
      if (v.backend == Backend::kHost) host.insert(v.name);
    }
    std::set<std::string> runs;
    for (const auto& [name, fn] : op.host_runs) runs.insert(name);
    EXPECT_EQ(host, runs) << op.name;
  }
}

// ---- host variants against the float64 reference -------------------------------------------

// Odd shapes for an operation: fixed edge cases (one row, one column, primes) plus random ones.
std::vector<Problem> OddHostProblems(const Operation& op, const std::string& variant) {
  std::mt19937_64 rng(0xC0FFEE ^ std::hash<std::string>{}(op.name + variant));
  auto dim = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<std::vector<int64_t>> shapes;
  std::map<std::string, int64_t> params;
  const std::string& n = op.name;
  if (n == "softmax" || n == "reduce") {
    shapes = {{1, 1}, {1, 97}, {97, 1}, {13, 257}};
    for (int i = 0; i < 4; ++i) shapes.push_back({dim(1, 40), dim(1, 600)});
  } else if (n == "matmul") {
    shapes = {{1, 1, 1}, {1, 37, 5}, {37, 1, 41}, {13, 17, 1}};
    for (int i = 0; i < 4; ++i) shapes.push_back({dim(1, 70), dim(1, 70), dim(1, 70)});
  } else if (n == "mlp") {
    shapes = {{1, 1}, {1, 7}, {5, 1}, {3, 13}};
    for (int i = 0; i < 3; ++i) shapes.push_back({dim(1, 24), dim(1, 24)});
  } else {  // elementwise, any rank
    shapes = {{1}, {2}, {97}, {1, 31}, {31, 1}, {3, 5, 7}, {2, 3, 5, 7}};
    for (int i = 0; i < 4; ++i) shapes.push_back({dim(1, 5000)});
  }
  std::vector<Problem> out;
  for (auto& s : shapes) {
    Problem p = MakeProblem(op.name, variant, s);
    if (n == "mlp") {
      p.params["layers"] = dim(1, 3);
      p.params["steps"] = dim(1, 2);
    }
    out.push_back(std::move(p));
  }
  return out;
}

TEST(HostVariants, MatchFloat64ReferenceOnOddShapes) {
  int checked = 0;
  for (const Operation& op : Catalogue()) {
    for (const auto& [variant, run] : op.host_runs) {
      for (Problem p : OddHostProblems(op, variant)) {
        ASSERT_TRUE(ValidateProblem(&p).ok()) << ValidateProblem(&p);
        const std::string what =
            absl::StrCat(op.name, "/", variant, " ", absl::StrJoin(p.shape, "x"));
        const Layout layout = op.layout(p);
        std::vector<std::vector<float>> in, out;
        HostTensors in64, ref;
        for (size_t t = 0; t < layout.inputs.size(); ++t) {
          auto& v = in.emplace_back(layout.inputs[t].elements);
          auto& d = in64.emplace_back(layout.inputs[t].elements);
          for (size_t i = 0; i < v.size(); ++i) {
            v[i] =
                UniformAt(42, static_cast<uint32_t>(t), i, static_cast<float>(layout.input_scale));
            d[i] = v[i];
          }
        }
        for (const TensorSpec& t : layout.outputs) {
          out.emplace_back(t.elements, std::numeric_limits<float>::quiet_NaN());
          ref.emplace_back(t.elements, 0.0);
        }
        std::vector<const float*> in_ptrs;
        std::vector<float*> out_ptrs;
        for (auto& v : in) in_ptrs.push_back(v.data());
        for (auto& v : out) out_ptrs.push_back(v.data());
        run(p, in_ptrs, out_ptrs);
        op.reference(p, in64, &ref);
        HostTensors scales(ref.size());
        if (op.error_scale) {
          for (size_t o = 0; o < ref.size(); ++o) scales[o].assign(ref[o].size(), 0.0);
          op.error_scale(p, in64, &scales);
        }
        for (size_t o = 0; o < out.size(); ++o) {
          const std::vector<double> got(out[o].begin(), out[o].end());
          const CheckResult r = CompareRelativeL2(got, ref[o], op.tolerance(p), scales[o]);
          EXPECT_TRUE(r.passed) << what << " output " << layout.outputs[o].name << ": " << r.detail;
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 50);
}

// The reference of a sampled element agrees with the full reference (matmul checks large
// problems on a sample).
TEST(Reference, ElementReferenceAgreesWithFullReference) {
  for (const Operation& op : Catalogue()) {
    if (!op.reference_element) continue;
    for (Problem p : OddHostProblems(op, op.variants.front().name)) {
      ASSERT_TRUE(ValidateProblem(&p).ok());
      const Layout layout = op.layout(p);
      HostTensors in, ref;
      for (size_t t = 0; t < layout.inputs.size(); ++t) {
        auto& d = in.emplace_back(layout.inputs[t].elements);
        for (size_t i = 0; i < d.size(); ++i)
          d[i] = UniformAt(7, static_cast<uint32_t>(t), i, 1.0f);
      }
      for (const TensorSpec& t : layout.outputs) ref.emplace_back(t.elements, 0.0);
      op.reference(p, in, &ref);
      for (size_t o = 0; o < ref.size(); ++o) {
        for (int64_t i = 0; i < static_cast<int64_t>(ref[o].size()); ++i) {
          ASSERT_NEAR(op.reference_element(p, in, o, i), ref[o][i],
                      1e-9 * (1 + std::abs(ref[o][i])))
              << op.name << " output " << o << " element " << i;
        }
      }
    }
  }
}

// ---- cost models -----------------------------------------------------------------------------

Cost CostOf(const std::string& op, const std::string& variant, std::vector<int64_t> shape,
            DType dtype = DType::kF32, std::map<std::string, int64_t> params = {}) {
  Problem p = MakeProblem(op, variant, std::move(shape), dtype);
  p.params = std::move(params);
  const absl::Status s = ValidateProblem(&p);
  EXPECT_TRUE(s.ok()) << s;
  return FindOperation(op)->cost(p);
}

TEST(CostModel, CopyMovesEachElementTwice) {
  const Cost c = CostOf("copy", "vectorized", {1000, 3}, DType::kF16);
  EXPECT_EQ(c.bytes, 2 * 3000 * 2);
  EXPECT_EQ(c.flops, 0);
}

TEST(CostModel, SquareReadsAndWritesOnceWithOneFlopPerElement) {
  const Cost c = CostOf("square", "vectorized", {7, 11});
  EXPECT_EQ(c.bytes, 2 * 77 * 4);
  EXPECT_EQ(c.flops, 77);
}

TEST(CostModel, AddReadsTwoInputs) {
  const Cost c = CostOf("add", "naive", {5}, DType::kBF16);
  EXPECT_EQ(c.bytes, 3 * 5 * 2);
  EXPECT_EQ(c.flops, 5);
}

TEST(CostModel, GeluCountsTheFusedMinimum) {
  const Cost c = CostOf("gelu", "tanh_unfused", {100});
  EXPECT_EQ(c.bytes, 2 * 100 * 4);
  EXPECT_EQ(c.flops, 800);
}

TEST(CostModel, SoftmaxReadsAndWritesOnce) {
  const Cost c = CostOf("softmax", "online", {3, 50}, DType::kF16);
  EXPECT_EQ(c.bytes, 2 * 150 * 2);
  EXPECT_EQ(c.flops, 5 * 150);
}

TEST(CostModel, MatmulIsTwoMnk) {
  const Cost c = CostOf("matmul", "cublas", {3, 5, 7}, DType::kBF16);
  EXPECT_EQ(c.flops, 2 * 3 * 5 * 7);
  EXPECT_EQ(c.bytes, (3 * 7 + 7 * 5 + 3 * 5) * 2);
}

TEST(CostModel, ReduceRowsWritesOneSumPerRow) {
  const Cost c = CostOf("reduce", "rows_warp", {6, 10});
  EXPECT_EQ(c.bytes, (60 + 6) * 4);
  EXPECT_EQ(c.flops, 60);
}

TEST(CostModel, ReduceFullWritesOneSum) {
  const Cost c = CostOf("reduce", "full_two_pass", {6, 10}, DType::kBF16);
  EXPECT_EQ(c.bytes, (60 + 1) * 2);
  EXPECT_EQ(c.flops, 60);
}

// Per step: forward, weight gradient and input gradient products per layer, but no input
// gradient for the first layer (the input needs none; neither the reference nor mlp.cu computes
// it): 2 B d^2 (3 L - 1).
TEST(CostModel, MlpCountsTheProductsTheStepComputes) {
  const Cost c = CostOf("mlp", "fused", {8, 16}, DType::kF32, {{"layers", 3}, {"steps", 2}});
  EXPECT_EQ(c.flops, 2 * 2 * 8 * 16 * 16 * (3 * 3 - 1));
  // Per step: x read and y written (2 B d), parameters read and gradients written.
  EXPECT_EQ(c.bytes, 2 * 4 * (2 * 8 * 16 + 2 * 3 * (16 * 16 + 16)));
}

// ---- operation-specific validation and layouts -------------------------------------------------

TEST(ValidateProblem, MlpFillsDefaultParams) {
  Problem p = MakeProblem("mlp", "fused", {4, 8});
  ASSERT_TRUE(ValidateProblem(&p).ok());
  EXPECT_EQ(p.param("layers"), 4);
  EXPECT_EQ(p.param("steps"), 1);
}

TEST(ValidateProblem, MlpRejectsLayersOutOfRangeNamingParams) {
  Problem p = MakeProblem("mlp", "fused", {4, 8});
  p.params["layers"] = 0;
  ExpectInvalid(p, "params");
  p.params["layers"] = 65;
  ExpectInvalid(p, "params");
}

TEST(ValidateProblem, MlpRejectsDimSquaredBeyondCublasIntNamingShape) {
  ExpectInvalid(MakeProblem("mlp", "fused", {4, 50000}), "shape");
}

TEST(ValidateProblem, MatmulTensorCoreTakesOnlyHalfPrecision) {
  ExpectInvalid(MakeProblem("matmul", "tensorcore", {64, 64, 64}, DType::kF32), "dtype");
  Problem p = MakeProblem("matmul", "tensorcore", {64, 64, 64}, DType::kBF16);
  EXPECT_TRUE(ValidateProblem(&p).ok());
}

TEST(Layout, ReduceOutputsOneSumPerRowOrOneInAll) {
  Problem rows = MakeProblem("reduce", "rows_block", {7, 9});
  Problem full = MakeProblem("reduce", "full_single_pass", {7, 9});
  ASSERT_TRUE(ValidateProblem(&rows).ok() && ValidateProblem(&full).ok());
  EXPECT_EQ(FindOperation("reduce")->layout(rows).outputs[0].elements, 7);
  EXPECT_EQ(FindOperation("reduce")->layout(full).outputs[0].elements, 1);
  EXPECT_GT(FindOperation("reduce")->layout(full).workspace_bytes, 0);
}

TEST(Layout, MatmulTensorCorePadsOnlyRowsWhosePitchIsNot16Bytes) {
  const Operation& op = *FindOperation("matmul");
  Problem aligned = MakeProblem("matmul", "tensorcore", {64, 64, 64}, DType::kBF16);
  Problem odd_k = MakeProblem("matmul", "tensorcore", {10, 64, 13}, DType::kBF16);
  ASSERT_TRUE(ValidateProblem(&aligned).ok() && ValidateProblem(&odd_k).ok());
  EXPECT_EQ(op.layout(aligned).workspace_bytes, 0);
  EXPECT_EQ(op.layout(odd_k).workspace_bytes, 10 * 16 * 2);  // A padded to 16 columns
}

HostTensors SeededInputs(const Layout& layout, uint64_t seed) {
  HostTensors in;
  for (size_t t = 0; t < layout.inputs.size(); ++t) {
    auto& d = in.emplace_back(layout.inputs[t].elements);
    for (size_t i = 0; i < d.size(); ++i) d[i] = UniformAt(seed, static_cast<uint32_t>(t), i, 1.0f);
  }
  return in;
}

HostTensors RunReference(const Operation& op, const Problem& p, const HostTensors& in) {
  HostTensors out;
  for (const TensorSpec& t : op.layout(p).outputs) out.emplace_back(t.elements, 0.0);
  op.reference(p, in, &out);
  return out;
}

// The reference's backward pass agrees with central differences of its own forward pass.
TEST(Reference, MlpGradientMatchesFiniteDifferences) {
  Problem p = MakeProblem("mlp", "host", {3, 4});
  p.params = {{"layers", 2}, {"steps", 1}};
  ASSERT_TRUE(ValidateProblem(&p).ok());
  const Operation& op = *FindOperation("mlp");
  const HostTensors in = SeededInputs(op.layout(p), 5);
  const HostTensors base = RunReference(op, p, in);
  auto mean_y = [&](const HostTensors& inputs) {
    const HostTensors out = RunReference(op, p, inputs);
    double s = 0;
    for (double v : out[0]) s += v;
    return s / static_cast<double>(out[0].size());
  };
  const double h = 1e-6;
  auto check = [&](size_t tensor, size_t grad_output, size_t stride) {
    for (size_t i = 0; i < in[tensor].size(); i += stride) {
      HostTensors plus = in, minus = in;
      plus[tensor][i] += h;
      minus[tensor][i] -= h;
      const double fd = (mean_y(plus) - mean_y(minus)) / (2 * h);
      EXPECT_NEAR(base[grad_output][i], fd, 1e-8) << "tensor " << tensor << " element " << i;
    }
  };
  check(/*biases*/ 2, /*grad_biases*/ 2, 1);
  check(/*weights*/ 1, /*grad_weights*/ 1, 3);
}

TEST(Reference, MlpStepsMultiplyTheGradients) {
  Problem one = MakeProblem("mlp", "host", {2, 3});
  one.params = {{"layers", 2}, {"steps", 1}};
  Problem three = one;
  three.params["steps"] = 3;
  ASSERT_TRUE(ValidateProblem(&one).ok() && ValidateProblem(&three).ok());
  const Operation& op = *FindOperation("mlp");
  const HostTensors in = SeededInputs(op.layout(one), 9);
  const HostTensors a = RunReference(op, one, in), b = RunReference(op, three, in);
  for (size_t i = 0; i < a[0].size(); ++i) EXPECT_DOUBLE_EQ(a[0][i], b[0][i]);
  for (size_t i = 0; i < a[1].size(); ++i) EXPECT_NEAR(3 * a[1][i], b[1][i], 1e-15);
}

// ---- layouts and tolerances --------------------------------------------------------------------

TEST(Layout, EveryTensorIsNonEmptyAtDefaultShapes) {
  for (const Operation& op : Catalogue()) {
    for (const VariantDesc& v : op.variants) {
      Problem p = MakeProblem(op.name, v.name, {}, v.dtypes.front());
      ASSERT_TRUE(ValidateProblem(&p).ok());
      const Layout l = op.layout(p);
      EXPECT_FALSE(l.inputs.empty()) << op.name;
      EXPECT_FALSE(l.outputs.empty()) << op.name;
      for (const TensorSpec& t : l.inputs) EXPECT_GT(t.elements, 0) << op.name << " " << t.name;
      for (const TensorSpec& t : l.outputs) EXPECT_GT(t.elements, 0) << op.name << " " << t.name;
      EXPECT_GE(l.workspace_bytes, 0) << op.name;
      EXPECT_GT(l.input_scale, 0) << op.name;
    }
  }
}

TEST(Tolerance, LowerPrecisionNeverGetsATighterTolerance) {
  for (const Operation& op : Catalogue()) {
    for (const VariantDesc& v : op.variants) {
      std::map<DType, double> tol;
      for (DType d : v.dtypes) {
        Problem p = MakeProblem(op.name, v.name, {}, d);
        ASSERT_TRUE(ValidateProblem(&p).ok());
        tol[d] = op.tolerance(p);
        EXPECT_GE(tol[d], 0) << op.name;
        EXPECT_LT(tol[d], 0.05) << op.name << " tolerance too loose to catch a wrong kernel";
      }
      if (tol.count(DType::kF32) && tol.count(DType::kBF16)) {
        EXPECT_LE(tol[DType::kF32], tol[DType::kBF16]) << op.name;
      }
    }
  }
}

TEST(MemoryFootprint, CountsInputsOutputsAndWorkspace) {
  Problem p = MakeProblem("softmax", "naive", {10, 20}, DType::kF16);
  ASSERT_TRUE(ValidateProblem(&p).ok());
  // in + out in f16, workspace (n + 2 rows) f32.
  EXPECT_EQ(MemoryFootprint(p), 2 * 200 * 2 + (200 + 20) * 4);
}

}  // namespace
}  // namespace kbench::kernels
