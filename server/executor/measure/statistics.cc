// Statistics of timing samples.
#include "server/executor/measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kbench::measure {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

SampleStatistics ComputeStatistics(std::vector<double> samples) {
  SampleStatistics s;
  s.samples = static_cast<int64_t>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  s.min = samples.front();
  s.max = samples.back();
  s.median = Percentile(samples, 0.5);
  s.p10 = Percentile(samples, 0.10);
  s.p90 = Percentile(samples, 0.90);
  s.p99 = Percentile(samples, 0.99);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  if (samples.size() > 1) {
    double ss = 0;
    for (double x : samples) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / (n - 1));
  }
  s.relative_stddev = s.mean > 0 ? s.stddev / s.mean : 0;
  // Ranks n/2 -+ 1.96 sqrt(n)/2 bound the median with ~95% confidence (binomial, normal approx).
  const double half_width = 1.96 * std::sqrt(n) / 2.0;
  const auto clamp_rank = [&](double r) {
    return static_cast<size_t>(std::clamp(r, 0.0, n - 1));
  };
  s.median_ci_low = samples[clamp_rank(std::floor(n / 2.0 - half_width))];
  s.median_ci_high = samples[clamp_rank(std::ceil(n / 2.0 + half_width) - 1)];
  return s;
}

void RunningStats::Add(double x) {
  ++n_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

double RunningStats::stddev() const {
  return n_ > 1 ? std::sqrt(m2_ / static_cast<double>(n_ - 1)) : 0;
}

double RunningStats::relative_stddev() const {
  if (n_ < 2 || mean_ <= 0) return std::numeric_limits<double>::infinity();
  return stddev() / mean_;
}

}  // namespace kbench::measure
