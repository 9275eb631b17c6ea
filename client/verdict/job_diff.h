// Two benchmark jobs' raw samples compared variant by variant (analysis/verdict.h): what
// `kbctl diff` and `kbctl bench --baseline` print and `--fail-on` acts on.
#pragma once

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "client/verdict/history_noise.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

struct DiffOptions {
  // > 0: the minimum effect, percent, instead of max(1 %, the measured noise).
  double min_effect_percent = 0;
  double alpha = 0.05;
  // The between-job noise of each baseline variant's key (history_noise.h), by variant name;
  // the default minimum effect is at least its 95th percentile.
  std::map<std::string, HistoryNoise> history_noise;
};

// Variants are paired by name; two single-variant jobs of different variants are paired with
// each other. FAILED_PRECONDITION unless both jobs are succeeded benchmarks; INVALID_ARGUMENT
// when they share no variant.
absl::StatusOr<v1::JobComparison> CompareJobs(const v1::Job& baseline, const v1::Job& candidate,
                                              const DiffOptions& options);

// The measured noise of two results, percent: the larger of their medians' 95 % interval
// half-widths relative to the median, and the between-job noise of their key when known.
double MeasuredNoisePercent(const v1::VariantResult& a, const v1::VariantResult& b,
                            const HistoryNoise& history = {});

}  // namespace kbench::client
