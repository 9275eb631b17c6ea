// Robust statistics of a set of timing samples (seconds per launch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbench::measure {

struct SampleStatistics {
  double min = 0, median = 0, mean = 0, stddev = 0, max = 0;
  double p10 = 0, p90 = 0, p99 = 0;
  double relative_stddev = 0;
  // 95% confidence interval of the median from order statistics (distribution-free; ranks of
  // MedianConfidenceRanks).
  double median_ci_low = 0, median_ci_high = 0;
  int64_t samples = 0;
};

// Percentile q in [0, 1] of sorted values, linearly interpolated between order statistics.
double Percentile(const std::vector<double>& sorted, double q);

SampleStatistics ComputeStatistics(std::vector<double> samples);

// 0-based ranks [low, high] of the sorted sample that bound the median of n >= 1 samples with
// at least 95% confidence: the textbook order-statistic interval [X_(k), X_(n-k+1)] with k the
// largest rank such that P(Binomial(n, 1/2) <= k - 1) <= 2.5% (Conover, Practical
// Nonparametric Statistics, 3rd ed., 3.2; exact for n <= kExactRankLimit, the normal
// approximation with continuity correction above). Below n = 6 no rank reaches 95% and the
// interval is [min, max].
struct MedianRanks {
  size_t low = 0, high = 0;
};
MedianRanks MedianConfidenceRanks(size_t n);
inline constexpr size_t kExactRankLimit = 4096;

// The half-width of the median's 95% interval over the median, from unsorted values; infinite
// when the median is not positive. O(n) (selection, not a sort), for a stopping rule that asks
// after every sample.
double MedianRelativeHalfWidth(std::vector<double> values);

// Drift within a run: the medians of the first and second halves of the samples (in the order
// taken) and whether their 95% intervals are disjoint (the median moved by more than either
// half can explain). Needs 12 samples (6 per half, the fewest for a 95% interval).
struct DriftCheck {
  bool checked = false;
  bool drifted = false;
  double first_half_median = 0, second_half_median = 0;
};
DriftCheck CheckDrift(const std::vector<double>& samples_in_order);

// Welford's running mean and variance, so a stopping rule can ask for the noise after every
// sample without re-reading all of them.
class RunningStats {
 public:
  void Add(double x);
  int64_t count() const { return n_; }
  double mean() const { return mean_; }
  // Sample standard deviation (n - 1); 0 below two samples.
  double stddev() const;
  // stddev / mean; infinite below two samples.
  double relative_stddev() const;

 private:
  int64_t n_ = 0;
  double mean_ = 0;
  double m2_ = 0;
};

}  // namespace kbench::measure
