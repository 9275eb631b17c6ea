// Robust statistics of a set of timing samples (seconds per launch).
#pragma once

#include <cstdint>
#include <vector>

namespace kbench::measure {

struct SampleStatistics {
  double min = 0, median = 0, mean = 0, stddev = 0, max = 0;
  double p10 = 0, p90 = 0, p99 = 0;
  double relative_stddev = 0;
  // 95% confidence interval of the median from order statistics (distribution-free).
  double median_ci_low = 0, median_ci_high = 0;
  int64_t samples = 0;
};

// Percentile q in [0, 1] of sorted values, linearly interpolated between order statistics.
double Percentile(const std::vector<double>& sorted, double q);

SampleStatistics ComputeStatistics(std::vector<double> samples);

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
