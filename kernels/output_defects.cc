// Detecting degenerate outputs (zeros, constant, copied input) against the float64 reference.
#include "kernels/output_defects.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kbench::kernels {
namespace {

// Units in the last place of the output dtype within which a correct kernel's rounding and
// accumulation order may move a value; a reference spread under this many ulps of its largest
// magnitude is treated as constant. Generous, so that no correct kernel is ever refused: a
// cheat's output differs from the reference by O(1), not by a few ulps.
constexpr double kUlpsOfSlack = 8;

double MaxAbs(std::span<const double> v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

bool AllEqualTo(std::span<const double> v, double value) {
  return std::all_of(v.begin(), v.end(), [value](double x) { return x == value; });
}

// The reference's largest departure from `other` element by element.
double MaxDifference(std::span<const double> ref, std::span<const double> other) {
  double m = 0;
  for (size_t i = 0; i < ref.size(); ++i) m = std::max(m, std::abs(ref[i] - other[i]));
  return m;
}

double Spread(std::span<const double> v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *hi - *lo;
}

}  // namespace

DefectThresholds DefectThresholdsFor(DType dtype) {
  // Unit roundoff 2^-p of the output's storage (p = significand bits) and half its smallest
  // subnormal: IEEE 754 binary32/16 and bfloat16.
  switch (dtype) {
    case DType::kF16:
      return {kUlpsOfSlack * std::ldexp(1.0, -11), std::ldexp(1.0, -25)};
    case DType::kBF16:
      return {kUlpsOfSlack * std::ldexp(1.0, -8), std::ldexp(1.0, -134)};
    case DType::kF32:
    case DType::kTF32:
      break;
  }
  return {kUlpsOfSlack * std::ldexp(1.0, -24), std::ldexp(1.0, -150)};
}

DefectFinding FindOutputDefect(std::span<const double> out, std::span<const double> ref,
                               const std::vector<std::span<const double>>& inputs_at,
                               const DefectThresholds& thresholds) {
  DefectFinding f;
  if (out.empty() || out.size() != ref.size()) return f;
  if (!std::all_of(out.begin(), out.end(), [](double x) { return std::isfinite(x); })) return f;
  const double scale = MaxAbs(ref);
  const double tolerance = std::max(thresholds.relative * scale, thresholds.zero);
  if (AllEqualTo(out, 0) && scale > thresholds.zero) {
    f.defect = OutputDefect::kAllZeros;
    f.message =
        absl::StrFormat("output is all zeros but the reference is not (largest |ref| %.6g)", scale);
    return f;
  }
  if (out.size() > 1 && AllEqualTo(out, out[0]) && Spread(ref) > tolerance) {
    f.defect = OutputDefect::kConstant;
    f.message = absl::StrFormat(
        "output is the constant %.9g in all %d elements but the reference is not (it spans %.6g)",
        out[0], out.size(), Spread(ref));
    return f;
  }
  for (size_t k = 0; k < inputs_at.size(); ++k) {
    const std::span<const double> in = inputs_at[k];
    if (in.size() != out.size() || MaxDifference(out, in) != 0) continue;
    if (MaxDifference(ref, in) <= tolerance) continue;  // the operation is (nearly) a copy
    f.defect = OutputDefect::kCopyOfInput;
    f.input = static_cast<int>(k);
    f.message = absl::StrFormat(
        "output is a copy of input %d but the reference is not (it differs by up to %.6g)", k,
        MaxDifference(ref, in));
    return f;
  }
  return f;
}

}  // namespace kbench::kernels
