// Outputs that only look right: all zeros, one constant, or a copy of an input, where the
// float64 reference is none of these (issue 10, item 5). Such an output fails its check even
// when it lands within a loose tolerance, because it says the kernel skipped the work.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kernels/dtype.h"

namespace kbench::kernels {

enum class OutputDefect { kNone, kAllZeros, kConstant, kCopyOfInput };

struct DefectFinding {
  OutputDefect defect = OutputDefect::kNone;
  // kCopyOfInput: which input was copied.
  int input = -1;
  // For people: "output is all zeros but the reference is not".
  std::string message;
};

// How far apart two values must be, for `dtype`'s outputs, before the reference counts as
// varying (or as differing from an input): below it, a correct kernel's rounding alone could
// make a constant output or an output equal to its input.
struct DefectThresholds {
  // Relative to the reference's largest magnitude.
  double relative = 0;
  // Magnitudes under this round to zero in the dtype.
  double zero = 0;
};
DefectThresholds DefectThresholdsFor(DType dtype);

// Looks for a defect in one output tensor. `out` and `ref` hold the compared elements (all of
// them, or a sample); `inputs_at[k]` holds input k's values at the same flat positions, or is
// empty when input k has a different element count (it cannot have been copied). Non-finite
// outputs are left to the relative-L2 check. A reference that is itself zero, constant or equal
// to an input never makes a defect: then the output is allowed to be so.
DefectFinding FindOutputDefect(std::span<const double> out, std::span<const double> ref,
                               const std::vector<std::span<const double>>& inputs_at,
                               const DefectThresholds& thresholds);

}  // namespace kbench::kernels
