// Two benchmark jobs compared variant by variant, the job as the unit of replication
// (common/stats/between_job_verdict.h), the variants one family of tests (Holm): what `kbctl diff`
// and `kbctl bench --baseline` print and `--fail-on` acts on. docs/verdicts.md says how.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "common/stats/between_job_noise.h"
#include "common/stats/between_job_verdict.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

// The smallest change that counts as FASTER or SLOWER unless --min-effect says otherwise: what
// a lab means by a regression, not what a device can resolve (that is the history's number).
inline constexpr double kDefaultMinEffectPercent = 3.0;

struct DiffOptions {
  double min_effect_percent = kDefaultMinEffectPercent;
  double alpha = 0.05;
  // The between-job noise of each baseline variant's key (history_noise.h), by variant name;
  // a variant without one is a fresh key.
  std::map<std::string, analysis::BetweenJobNoise> history_noise;
};

// Variants are paired by name; two single-variant jobs of different variants are paired with
// each other. FAILED_PRECONDITION unless both jobs are succeeded benchmarks; INVALID_ARGUMENT
// when they share no variant.
absl::StatusOr<v1::JobComparison> CompareJobs(const v1::Job& baseline, const v1::Job& candidate,
                                              const DiffOptions& options);

// One job's result of a variant as the verdict sees it: its median and the standard error of
// the median's log, over its placement medians when it has several (a cluster bootstrap), else
// from its own median interval. INVALID_ARGUMENT when it has no median.
absl::StatusOr<analysis::JobEstimate> EstimateOf(const v1::VariantResult& result,
                                                 std::string* interval_over);

}  // namespace kbench::client
