// Descriptive statistics of a sample of times: the building blocks of the tests and intervals.
#pragma once

#include <span>
#include <vector>

namespace kbench::analysis {

double Mean(std::span<const double> x);
// Unbiased (n - 1) sample variance; 0 for fewer than two values.
double SampleVariance(std::span<const double> x);
// Median of a copy (the caller's order is kept). NaN for an empty sample.
double Median(std::span<const double> x);
// Median of `x` reordering it in place (the bootstrap's inner loop: no allocation).
double MedianInPlace(std::vector<double>& x);

}  // namespace kbench::analysis
