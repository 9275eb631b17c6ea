// The pairs of an interleaved A/B: placements of shared jobs, or alternating separate jobs.
#include "client/paired/paired_run.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/errors.h"
#include "client/job_wait.h"
#include "common/placement_limits.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// A copy of `request` whose idempotency key, when it has one, is its own: a retried A/B finds
// each of its jobs again instead of following the first one N times.
v1::SubmitJobRequest Numbered(const v1::SubmitJobRequest& request, const std::string& suffix) {
  v1::SubmitJobRequest copy = request;
  if (!copy.idempotency_key().empty()) {
    copy.set_idempotency_key(absl::StrCat(copy.idempotency_key(), "/", suffix));
  }
  return copy;
}

// Runs the request to its end; a job that did not succeed with correct results is an error.
absl::StatusOr<v1::Job> RunJob(Session& session, const v1::SubmitJobRequest& request) {
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, SubmitRequestAndWait(session, request));
  KBENCH_RETURN_IF_ERROR(JobOutcome(job));
  return job;
}

absl::StatusOr<const v1::VariantResult*> ResultOf(const v1::Job& job, const std::string& variant) {
  for (const v1::VariantResult& v : job.result().variants()) {
    if (v.variant() == variant) return &v;
  }
  return CheckFailedError(absl::StatusCode::kDataLoss,
                          absl::StrCat("job ", job.id(), " has no result for variant ", variant));
}

// Each placement's median; the pooled median for a job of one placement (which lists none).
std::vector<double> PlacementMedians(const v1::VariantResult& v) {
  std::vector<double> medians;
  for (const v1::PlacementResult& p : v.placements()) medians.push_back(p.median_seconds());
  if (medians.empty()) medians.push_back(v.stats().median_seconds());
  return medians;
}

// The pairs of one shared job: placement k of both variants.
absl::Status AddSharedPairs(const v1::Job& job, const v1::JobSpec& spec, PairedRun* run) {
  KBENCH_ASSIGN_OR_RETURN(const v1::VariantResult* base, ResultOf(job, spec.variants(0)));
  KBENCH_ASSIGN_OR_RETURN(const v1::VariantResult* cand, ResultOf(job, spec.variants(1)));
  const std::vector<double> b = PlacementMedians(*base);
  const std::vector<double> c = PlacementMedians(*cand);
  if (b.size() != c.size()) {
    return CheckFailedError(
        absl::StatusCode::kDataLoss,
        absl::StrCat("job ", job.id(), ": ", b.size(), " placements of ", spec.variants(0), " but ",
                     c.size(), " of ", spec.variants(1)));
  }
  for (size_t k = 0; k < b.size(); ++k) {
    run->baseline_seconds.push_back(b[k]);
    run->candidate_seconds.push_back(c[k]);
    run->pair_sources.push_back(absl::StrCat(job.id(), " placement ", k + 1));
  }
  return absl::OkStatus();
}

absl::Status CheckPairs(int pairs) {
  if (pairs >= 2 && pairs <= kMaxPairs) return absl::OkStatus();
  return UsageError(absl::StrCat("--repeat: ", pairs, " is outside [2, ", kMaxPairs, "]"));
}

}  // namespace

absl::StatusOr<PairedRun> RunSharedPairs(Session& session, const v1::SubmitJobRequest& both,
                                         int pairs) {
  KBENCH_RETURN_IF_ERROR(CheckPairs(pairs));
  if (both.spec().variants_size() != 2) {
    return UsageError(
        absl::StrCat("an A/B job times two variants, not ", both.spec().variants_size()));
  }
  // Placements spread evenly over the fewest jobs: 17 pairs are 9 + 8, not 16 + 1.
  const int jobs = (pairs + kMaxPlacements - 1) / kMaxPlacements;
  PairedRun run;
  for (int j = 0; j < jobs; ++j) {
    v1::SubmitJobRequest request = Numbered(both, absl::StrCat("round-", j + 1));
    request.mutable_spec()->set_placements(pairs / jobs + (j < pairs % jobs ? 1 : 0));
    if (jobs > 1) {
      session.Note(absl::StrCat("kbctl: A/B round ", j + 1, " of ", jobs, ": ",
                                request.spec().placements(), " pairs"));
    }
    KBENCH_ASSIGN_OR_RETURN(v1::Job job, RunJob(session, request));
    KBENCH_RETURN_IF_ERROR(AddSharedPairs(job, request.spec(), &run));
    run.jobs.push_back(std::move(job));
  }
  return run;
}

absl::StatusOr<PairedRun> RunSeparatePairs(Session& session, const v1::SubmitJobRequest& baseline,
                                           const v1::SubmitJobRequest& candidate, int pairs) {
  KBENCH_RETURN_IF_ERROR(CheckPairs(pairs));
  PairedRun run;
  for (int k = 0; k < pairs; ++k) {
    // Even pairs time the baseline first, odd ones the candidate.
    const bool baseline_first = k % 2 == 0;
    const v1::SubmitJobRequest& first = baseline_first ? baseline : candidate;
    const v1::SubmitJobRequest& second = baseline_first ? candidate : baseline;
    session.Note(absl::StrCat("kbctl: pair ", k + 1, " of ", pairs));
    KBENCH_ASSIGN_OR_RETURN(v1::Job a, RunJob(session, Numbered(first, absl::StrCat(k + 1, "a"))));
    KBENCH_ASSIGN_OR_RETURN(v1::Job b, RunJob(session, Numbered(second, absl::StrCat(k + 1, "b"))));
    const v1::Job& base_job = baseline_first ? a : b;
    const v1::Job& cand_job = baseline_first ? b : a;
    KBENCH_ASSIGN_OR_RETURN(const v1::VariantResult* base,
                            ResultOf(base_job, baseline.spec().variants(0)));
    KBENCH_ASSIGN_OR_RETURN(const v1::VariantResult* cand,
                            ResultOf(cand_job, candidate.spec().variants(0)));
    run.baseline_seconds.push_back(base->stats().median_seconds());
    run.candidate_seconds.push_back(cand->stats().median_seconds());
    run.pair_sources.push_back(absl::StrCat(a.id(), " then ", b.id()));
    run.jobs.push_back(std::move(a));
    run.jobs.push_back(std::move(b));
  }
  return run;
}

}  // namespace kbench::client
