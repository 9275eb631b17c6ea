// Binary search for the first slower version, with UNSURE steps re-run on more pairs.
#include "client/bisect/search.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status CheckSearch(int versions, const BisectOptions& options) {
  if (versions < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("bisect needs at least two versions (the good one first), got ", versions));
  }
  if (options.first_pairs < 2 || options.max_pairs < options.first_pairs) {
    return absl::InvalidArgumentError(absl::StrCat("pairs: ", options.first_pairs,
                                                   " first and at most ", options.max_pairs,
                                                   " need 2 <= first <= max"));
  }
  return absl::OkStatus();
}

// Version `version`'s verdict against version 0: the first that is not UNSURE, doubling the
// pairs up to max_pairs; UNSURE when even those do not decide.
absl::StatusOr<analysis::Verdict> DecideVersion(int version, const BisectStepFunction& step,
                                                const BisectOptions& options,
                                                std::vector<BisectStep>* steps) {
  for (int pairs = options.first_pairs; pairs <= options.max_pairs; pairs *= 2) {
    KBENCH_ASSIGN_OR_RETURN(BisectStep s, step(version, pairs));
    s.version = version;
    const analysis::Verdict verdict = s.verdict.verdict;
    steps->push_back(std::move(s));
    if (verdict != analysis::Verdict::kUnsure) return verdict;
  }
  return analysis::Verdict::kUnsure;
}

}  // namespace

absl::StatusOr<BisectResult> Bisect(int versions, const BisectStepFunction& step,
                                    const BisectOptions& options) {
  KBENCH_RETURN_IF_ERROR(CheckSearch(versions, options));
  BisectResult result;
  // The last version first, as git bisect wants a bad commit: a search below a version that
  // is not slower would find nothing the user asked for.
  int probe = versions - 1;
  while (true) {
    KBENCH_ASSIGN_OR_RETURN(analysis::Verdict verdict,
                            DecideVersion(probe, step, options, &result.steps));
    if (verdict == analysis::Verdict::kUnsure) {
      result.outcome = BisectOutcome::kUndecided;
      result.undecided = probe;
      return result;
    }
    if (verdict == analysis::Verdict::kSlower) {
      result.first_slower = probe;
    } else if (probe == versions - 1) {
      result.outcome = BisectOutcome::kNoneSlower;
      result.last_good = probe;
      return result;
    } else {
      result.last_good = probe;
    }
    if (result.first_slower - result.last_good <= 1) break;
    probe = result.last_good + (result.first_slower - result.last_good) / 2;
  }
  result.outcome = BisectOutcome::kFound;
  result.culprit = result.first_slower;
  return result;
}

}  // namespace kbench::client
