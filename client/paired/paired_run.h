// Taking the pairs of an interleaved A/B (issue 26): N pairs of medians (baseline, candidate),
// each pair measured under the same conditions. Where both sides can share a job, a job of both
// variants allocates each one's tensors N times (JobSpec.placements) and samples everything
// interleaved: placement k of the two variants is pair k. Where they cannot (versions that are
// shapes of one variant), a pair is two jobs run back to back, the first of each pair
// alternating so that a drift over the run does not favour one side.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/session.h"
#include "kbench/v1/service.pb.h"

namespace kbench::client {

// The most pairs one A/B takes: beyond, a verdict's interval shrinks too slowly to be worth
// the device time.
inline constexpr int kMaxPairs = 1024;

struct PairedRun {
  // Seconds per launch, pair by pair.
  std::vector<double> baseline_seconds;
  std::vector<double> candidate_seconds;
  // The job(s) each pair came from: one id (shared job, with its placement) or "A then B".
  std::vector<std::string> pair_sources;
  // Every job run, in order: the evidence.
  std::vector<v1::Job> jobs;
};

// `both` benchmarks exactly two variants, the baseline first. Runs ceil(pairs / 16) jobs whose
// placements add up to `pairs`. A job that fails is an error (exit 1) naming it.
absl::StatusOr<PairedRun> RunSharedPairs(Session& session, const v1::SubmitJobRequest& both,
                                         int pairs);

// Runs `pairs` x 2 jobs of one variant each, baseline and candidate back to back, alternating
// which goes first.
absl::StatusOr<PairedRun> RunSeparatePairs(Session& session, const v1::SubmitJobRequest& baseline,
                                           const v1::SubmitJobRequest& candidate, int pairs);

}  // namespace kbench::client
