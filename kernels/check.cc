// Relative L2 comparison of an output with its float64 reference.
#include "kernels/check.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace kbench::kernels {

CheckResult CompareRelativeL2(std::span<const double> out, std::span<const double> ref,
                              double tolerance, std::span<const double> scale) {
  CheckResult r;
  r.tolerance = tolerance;
  r.elements_checked = static_cast<int64_t>(out.size());
  if (out.size() != ref.size()) {
    r.detail = absl::StrFormat("output has %d elements, reference %d", out.size(), ref.size());
    return r;
  }
  double diff2 = 0, ref2 = 0, worst = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++r.nan_count;
      continue;
    }
    const double d = out[i] - ref[i];
    diff2 += d * d;
    const double s = i < scale.size() ? scale[i] : 0.0;
    ref2 += std::max(ref[i] * ref[i], s * s);
    if (std::abs(d) > worst) {
      worst = std::abs(d);
      r.worst_index = static_cast<int64_t>(i);
      r.worst_out = out[i];
      r.worst_ref = ref[i];
    }
  }
  r.relative_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  r.passed = r.nan_count == 0 && r.relative_l2_error <= tolerance;
  if (r.nan_count > 0) {
    r.detail = absl::StrFormat("%d non-finite output elements", r.nan_count);
  } else if (!r.passed) {
    r.detail =
        absl::StrFormat("relative L2 error %.3g > tolerance %.3g; worst at %d: %.9g vs %.9g",
                        r.relative_l2_error, tolerance, r.worst_index, r.worst_out, r.worst_ref);
  }
  return r;
}

}  // namespace kbench::kernels
