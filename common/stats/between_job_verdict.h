// The verdict of one result key between two jobs, with the job as the unit of replication: the
// change in log medians is tested against the key's between-job noise (between_job_noise.h) and
// the jobs' own uncertainty, never against the thousands of samples inside each job (with
// which any run-to-run shift is "significant"). google/benchmark's compare.py tests over
// repetitions for the same reason.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "common/stats/between_job_noise.h"
#include "common/stats/bootstrap.h"
#include "common/stats/verdict.h"

namespace kbench::analysis {

// Student's t with this many degrees of freedom gives the p-value and the interval: its tails
// (density ~ |t|^-3) are far heavier than a normal's, as job-to-job changes are (the cpu
// device's A/A changes: p95 / median = 8.8, a normal's 2.9; docs/verdicts.md). With more
// degrees of freedom the panel's heavy-tailed device exceeds a 5 % false rate.
inline constexpr double kBetweenJobDegreesOfFreedom = 2;

// A key without history: the between-job noise is taken as this standard deviation of the log
// median, so that only a change beyond a factor of about 10 (1.96 x sqrt(2) x 0.83 = ln 10) is
// significant. The widest A/A changes measured were on the 2-core cpu device under other
// engineers' builds: 10 of 100 pairs beyond a factor of 3, the largest 5.4x (docs/benchmarks.md
// section 19), and a 95th percentile of 74.5 % under a load of 14-16 (section 8); none of the
// ~1000 A/A pairs measured on any device reached 10x.
inline constexpr double kFreshKeySigmaLog = 0.83;

// One job's result of the key: its median and the standard error of the median's log (its own
// uncertainty: over placement medians for a job of several placements).
struct JobEstimate {
  double median_seconds = 0;
  double log_standard_error = 0;
};

struct BetweenJobComparison {
  ChangeInterval change;  // percent, 95 % (1 - alpha) interval
  double p_value = 1;
  // The standard deviation of the change in log medians under no change, and the half-width,
  // percent, of the change's interval: the smallest change one pair of jobs resolves.
  double sigma_log = 0;
  double resolvable_percent = 0;
  // No between-job noise known: kFreshKeySigmaLog stood in for it.
  bool fresh_key = false;
  Verdict verdict = Verdict::kUnsure;
};

// The standard error of log(median(values)) by the bootstrap (values resampled with
// replacement). For a job of several placements `values` are its placement medians: the
// placement is resampled as a whole (a cluster bootstrap), so the interval says how far another
// draw of placements would move the median, not how precisely one draw's pooled samples pin it.
// INVALID_ARGUMENT for fewer than two values or a non-positive one.
absl::StatusOr<double> BootstrapLogMedianStandardError(std::span<const double> values,
                                                       const BootstrapOptions& options = {});

// The change from `baseline` to `candidate`: z = log(candidate / baseline) / sigma, sigma^2 =
// 2 noise^2 + se_a^2 + se_b^2, p two-sided from Student's t (kBetweenJobDegreesOfFreedom; a
// normal for a fresh key), the interval log change +- t_(1 - alpha/2) sigma, and Decide's
// verdict. INVALID_ARGUMENT for a non-positive median.
absl::StatusOr<BetweenJobComparison> CompareBetweenJobs(const JobEstimate& baseline,
                                                        const JobEstimate& candidate,
                                                        const BetweenJobNoise& noise, double alpha,
                                                        double min_effect_percent);

}  // namespace kbench::analysis
