// A 95 % interval as the tables print it: its larger half, relative to the median ("±0.09%").
// Header-only, so kbctl's tables and the HTML reports share one definition.
#pragma once

#include <algorithm>
#include <optional>

namespace kbench {

// max(median - low, high - median) / median; nullopt where there is no interval (a zero
// median or high end: a result that did not record one).
inline std::optional<double> RelativeHalfWidth(double median, double low, double high) {
  if (median <= 0 || high <= 0) return std::nullopt;
  return std::max(median - low, high - median) / median;
}

}  // namespace kbench
