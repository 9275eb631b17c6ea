// The degenerate-output detectors on synthetic outputs: zeros, a constant and a copied input
// fail where the reference is none of these; a correct output, and an output as degenerate as
// its reference, pass.
#include "kernels/output_defects.h"

#include <gtest/gtest.h>

#include <limits>
#include <span>
#include <vector>

namespace kbench::kernels {
namespace {

const DefectThresholds kF32 = DefectThresholdsFor(DType::kF32);
const std::vector<double> kInput = {0.5, -0.25, 0.75, -1.0};
// The reference of a square: in * in.
const std::vector<double> kSquare = {0.25, 0.0625, 0.5625, 1.0};

DefectFinding Find(const std::vector<double>& out, const std::vector<double>& ref,
                   const std::vector<std::vector<double>>& inputs = {kInput},
                   const DefectThresholds& thresholds = kF32) {
  const std::vector<std::span<const double>> at(inputs.begin(), inputs.end());
  return FindOutputDefect(out, ref, at, thresholds);
}

TEST(FindOutputDefect, FindsNothingInACorrectOutput) {
  const DefectFinding f = Find(kSquare, kSquare);
  EXPECT_EQ(f.defect, OutputDefect::kNone);
  EXPECT_EQ(f.message, "");
}

TEST(FindOutputDefect, FindsAllZerosWhereTheReferenceIsNot) {
  const DefectFinding f = Find({0, 0, -0.0, 0}, kSquare);
  EXPECT_EQ(f.defect, OutputDefect::kAllZeros);
  EXPECT_EQ(f.message.rfind("output is all zeros but the reference is not", 0), 0u) << f.message;
}

TEST(FindOutputDefect, PassesZerosWhenTheReferenceIsZeroToo) {
  EXPECT_EQ(Find({0, 0, 0, 0}, {0, 0, 0, 0}).defect, OutputDefect::kNone);
}

TEST(FindOutputDefect, PassesZerosWhenTheReferenceOnlyHoldsValuesThatRoundToZero) {
  // f16 cannot hold 1e-9: a correct f16 kernel writes zeros.
  EXPECT_EQ(Find({0, 0}, {1e-9, -1e-9}, {}, DefectThresholdsFor(DType::kF16)).defect,
            OutputDefect::kNone);
}

TEST(FindOutputDefect, FindsAConstantWhereTheReferenceVaries) {
  const DefectFinding f = Find({0.5, 0.5, 0.5, 0.5}, kSquare);
  EXPECT_EQ(f.defect, OutputDefect::kConstant);
  EXPECT_EQ(
      f.message.rfind("output is the constant 0.5 in all 4 elements but the reference is not", 0),
      0u)
      << f.message;
}

TEST(FindOutputDefect, PassesAConstantIdenticalToAConstantReference) {
  // Softmax over rows of one element: every output is 1.
  EXPECT_EQ(Find({1, 1, 1, 1}, {1, 1, 1, 1}).defect, OutputDefect::kNone);
}

TEST(FindOutputDefect, PassesAConstantWhenTheReferenceVariesOnlyWithinRounding) {
  // A spread of one bf16 ulp: rounding alone may make a correct output constant.
  const double ulp = 1.0 / 256;
  EXPECT_EQ(
      Find({1, 1, 1}, {1, 1 + ulp, 1 - ulp / 2}, {}, DefectThresholdsFor(DType::kBF16)).defect,
      OutputDefect::kNone);
}

TEST(FindOutputDefect, PassesASingleElementOutput) {
  // One value (a full reduction) is trivially "constant"; only the L2 check can judge it.
  EXPECT_EQ(Find({0.3}, {0.7}, {}).defect, OutputDefect::kNone);
}

TEST(FindOutputDefect, FindsACopyOfAnInputWhereTheReferenceIsNot) {
  const std::vector<double> other = {9, 9, 9, 8};
  const DefectFinding f = Find(kInput, kSquare, {other, kInput});
  EXPECT_EQ(f.defect, OutputDefect::kCopyOfInput);
  EXPECT_EQ(f.input, 1);
  EXPECT_EQ(f.message.rfind("output is a copy of input 1 but the reference is not", 0), 0u)
      << f.message;
}

TEST(FindOutputDefect, PassesACopyWhenTheOperationIsACopy) {
  EXPECT_EQ(Find(kInput, kInput).defect, OutputDefect::kNone);
}

TEST(FindOutputDefect, IgnoresInputsOfAnotherSize) {
  // Empty: the input's element count differs from the output's (matmul's A for a non-square C).
  EXPECT_EQ(Find(kInput, kSquare, {{}}).defect, OutputDefect::kNone);
}

TEST(FindOutputDefect, FindsACopyEvenWhenItWouldPassALooseTolerance) {
  // The reference differs from the input by 1% of its scale: far beyond f32 rounding, though a
  // 2% relative-L2 tolerance would let the copy through.
  const std::vector<double> in = {1.0, 2.0, 3.0, 4.0};
  const std::vector<double> ref = {1.01, 2.02, 3.03, 4.04};
  EXPECT_EQ(Find(in, ref, {in}).defect, OutputDefect::kCopyOfInput);
}

TEST(FindOutputDefect, LeavesNonFiniteOutputsToTheL2Check) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Find({nan, nan, nan, nan}, kSquare).defect, OutputDefect::kNone);
}

}  // namespace
}  // namespace kbench::kernels
