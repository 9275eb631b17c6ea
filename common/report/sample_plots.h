// A job's kept samples, drawn by gnuplot for its report (kbctl report JOB): each variant's
// samples in the order taken, where a drift or a step shows, and their distribution (each
// sample against the fraction of samples at or below it), one SVG each with a line per
// variant, times in a unit that keeps the numbers readable.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/report/plots.h"
#include "kbench/v1/types.pb.h"

namespace kbench::report {

struct SampleSeries {
  std::string variant;
  std::vector<double> seconds;  // in the order taken
};

// The variants of `job` that kept samples (VariantResult.sample_seconds).
std::vector<SampleSeries> SamplesOf(const v1::Job& job);

// The gnuplot script (exposed for tests): samples.svg and distribution.svg under `directory`.
std::string SamplePlotScript(const std::vector<SampleSeries>& series, const std::string& title,
                             const std::string& directory, std::vector<PlotFile>* files);

// None when no variant kept samples; FAILED_PRECONDITION without gnuplot; gnuplot's own
// failures with its log.
absl::StatusOr<std::vector<PlotFile>> DrawSamplePlots(const v1::Job& job,
                                                      const PlotOptions& options);

}  // namespace kbench::report
