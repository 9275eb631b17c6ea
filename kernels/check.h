// Correctness of an output against its float64 reference: relative L2 error, NaN never passes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace kbench::kernels {

struct CheckResult {
  bool passed = false;
  double relative_l2_error = 0;
  double tolerance = 0;
  int64_t nan_count = 0;
  int64_t elements_checked = 0;
  // Index and values of the worst element, for the message.
  int64_t worst_index = -1;
  double worst_out = 0;
  double worst_ref = 0;
  std::string detail;
};

// ||out - ref|| / ||ref|| (absolute ||out - ref|| when ref is all zeros). Any NaN or Inf in out
// fails the check. With `scale` (the operation's error_scale, same length), the denominator is
// sqrt(sum of max(ref_i^2, scale_i^2)): a result that cancels to near zero is judged against the
// magnitude its rounding error scales with, not against its own tiny value.
CheckResult CompareRelativeL2(std::span<const double> out, std::span<const double> ref,
                              double tolerance, std::span<const double> scale = {});

}  // namespace kbench::kernels
