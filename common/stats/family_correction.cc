// Holm's step-down adjustment of a family's p-values.
#include "common/stats/family_correction.h"

#include <algorithm>
#include <numeric>

namespace kbench::analysis {

std::vector<double> HolmAdjust(std::span<const double> p_values) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (size_t rank = 0; rank < m; ++rank) {
    const size_t i = order[rank];
    running = std::max(running, std::min(1.0, static_cast<double>(m - rank) * p_values[i]));
    adjusted[i] = running;
  }
  return adjusted;
}

double ExpectedFalseVerdicts(int keys, double alpha) {
  return keys <= 0 ? 0 : static_cast<double>(keys) * (alpha / keys);
}

}  // namespace kbench::analysis
