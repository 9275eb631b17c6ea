// The search of kbctl bisect (issue 26): over versions 0..n-1 of a kernel, version 0 good, find
// the first version SLOWER than version 0 by binary search, each step an interleaved A/B of
// version 0 with version k. Like git bisect it assumes that once slower, later versions stay
// slower. An UNSURE step is re-run with twice the pairs up to a bound; still UNSURE, the
// search stops and says which version it could not decide.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/stats/paired_verdict.h"

namespace kbench::client {

// One A/B of the good version with `version`: its verdict and the jobs that are its evidence.
struct BisectStep {
  int version = 0;
  analysis::PairedVerdict verdict;
  std::vector<std::string> job_ids;
};

// Compares version 0 with `version` over `pairs` pairs. Its error ends the search.
using BisectStepFunction = std::function<absl::StatusOr<BisectStep>(int version, int pairs)>;

struct BisectOptions {
  int first_pairs = 8;
  // An UNSURE step is re-run with doubled pairs while they stay within this.
  int max_pairs = 64;
};

enum class BisectOutcome {
  kFound,       // `culprit` is the first version slower than version 0
  kNoneSlower,  // the last version is not slower than version 0
  kUndecided,   // version `undecided` stayed UNSURE at max_pairs
};

struct BisectResult {
  BisectOutcome outcome = BisectOutcome::kUndecided;
  int culprit = -1;
  int undecided = -1;
  // The search's bounds when it ended: last_good is not slower, first_slower is (-1: none
  // known). Found: first_slower == culprit == last_good + 1.
  int last_good = 0;
  int first_slower = -1;
  // Every A/B run, UNSURE ones and their re-runs included, in order.
  std::vector<BisectStep> steps;
};

// INVALID_ARGUMENT for fewer than two versions, first_pairs < 2 or max_pairs < first_pairs.
absl::StatusOr<BisectResult> Bisect(int versions, const BisectStepFunction& step,
                                    const BisectOptions& options = {});

}  // namespace kbench::client
