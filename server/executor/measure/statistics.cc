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
  const MedianRanks ranks = MedianConfidenceRanks(samples.size());
  s.median_ci_low = samples[ranks.low];
  s.median_ci_high = samples[ranks.high];
  return s;
}

MedianRanks MedianConfidenceRanks(size_t n) {
  if (n == 0) return {};
  constexpr double kTail = 0.025;  // each side of a two-sided 95% interval
  // k is 1-based: the interval is [X_(k), X_(n-k+1)].
  size_t k = 0;
  if (n <= kExactRankLimit) {
    // Accumulate P(B <= i) in logs (2^-n underflows a double beyond n ~ 1074) until it would
    // pass the tail: then k - 1 = i - 1.
    const double log_half_n = -static_cast<double>(n) * std::log(2.0);
    double log_pmf = log_half_n;  // P(B = 0)
    double cdf = 0;
    for (size_t i = 0; i < n; ++i) {
      cdf += std::exp(log_pmf);
      if (cdf > kTail) break;
      k = i + 1;
      log_pmf += std::log(static_cast<double>(n - i)) - std::log(static_cast<double>(i + 1));
    }
  } else {
    // P(B <= k - 1) ~ Phi((k - 1/2 - n/2) / (sqrt(n)/2)) <= 2.5%.
    const double nd = static_cast<double>(n);
    k = static_cast<size_t>(std::floor(nd / 2.0 + 0.5 - 1.959963984540054 * std::sqrt(nd) / 2.0));
  }
  k = std::max<size_t>(k, 1);
  return {k - 1, n - k};
}

double MedianRelativeHalfWidth(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::infinity();
  const size_t n = values.size();
  const MedianRanks r = MedianConfidenceRanks(n);
  const size_t mid_low = (n - 1) / 2, mid_high = std::min(mid_low + 1, n - 1);
  // Select the ranks in increasing order, each in what lies right of the previous one.
  size_t from = 0;
  const auto select = [&](size_t rank) {
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from),
                     values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
    from = rank;
    return values[rank];
  };
  const double low = select(r.low);
  const double m0 = select(mid_low);
  const double m1 = select(mid_high);
  const double high = select(r.high);
  // As Percentile(sorted, 0.5) interpolates.
  const double median = m0 + (m1 - m0) * (0.5 * static_cast<double>(n - 1) - mid_low);
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  return 0.5 * (high - low) / median;
}

DriftCheck CheckDrift(const std::vector<double>& samples_in_order) {
  constexpr size_t kMinPerHalf = 6;
  DriftCheck d;
  const size_t half = samples_in_order.size() / 2;
  if (half < kMinPerHalf) return d;
  const auto mid = samples_in_order.begin() + static_cast<std::ptrdiff_t>(half);
  const SampleStatistics first = ComputeStatistics({samples_in_order.begin(), mid});
  const SampleStatistics second = ComputeStatistics({mid, samples_in_order.end()});
  d.checked = true;
  d.first_half_median = first.median;
  d.second_half_median = second.median;
  d.drifted =
      first.median_ci_high < second.median_ci_low || second.median_ci_high < first.median_ci_low;
  return d;
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
