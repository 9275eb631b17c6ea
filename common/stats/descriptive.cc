// Descriptive statistics of a sample of times.
#include "common/stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbench::analysis {

double Mean(std::span<const double> x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}

double SampleVariance(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const double mean = Mean(x);
  double squares = 0;
  for (double v : x) squares += (v - mean) * (v - mean);
  return squares / static_cast<double>(x.size() - 1);
}

double Median(std::span<const double> x) {
  std::vector<double> copy(x.begin(), x.end());
  return MedianInPlace(copy);
}

double MedianInPlace(std::vector<double>& x) {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid), x.end());
  const double upper = x[mid];
  if (x.size() % 2 == 1) return upper;
  // The lower middle is the largest value left of mid after nth_element.
  const double lower = *std::max_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

}  // namespace kbench::analysis
