// Every rank's output against its float64 reference.
#include "server/executor/cuda/collective_check.h"

#include "absl/strings/str_cat.h"
#include "kernels/check.h"
#include "kernels/ops/collectives.h"

namespace kbench::executor::cuda {
namespace {

v1::Correctness ToCorrectness(const kernels::CheckResult& r, int64_t unwritten, uint64_t seed) {
  v1::Correctness c;
  c.set_checked(true);
  // An element left poisoned is a NaN the L2 check already fails; said apart for the reader.
  c.set_passed(r.passed && unwritten == 0);
  c.set_relative_l2_error(r.relative_l2_error);
  c.set_tolerance(r.tolerance);
  c.set_nan_count(r.nan_count);
  c.set_unwritten_count(unwritten);
  c.set_elements_checked(r.elements_checked);
  c.set_detail(r.detail);
  c.set_input_seed(seed);
  return c;
}

}  // namespace

GangCorrectness CheckEveryRank(const kernels::Problem& problem,
                               const std::vector<std::vector<double>>& sends,
                               const std::vector<std::vector<double>>& recvs,
                               const std::vector<int64_t>& unwritten, uint64_t input_seed) {
  const kernels::CollectiveDesc& collective = *kernels::FindCollective(problem.op);
  const double tolerance = kernels::CollectiveTolerance(collective, problem);
  GangCorrectness gang;
  for (size_t r = 0; r < recvs.size(); ++r) {
    std::vector<double> reference(recvs[r].size());
    collective.reference(problem, sends, static_cast<int>(r), &reference);
    const kernels::CheckResult result = kernels::CompareRelativeL2(recvs[r], reference, tolerance);
    v1::Correctness rank = ToCorrectness(result, unwritten[r], input_seed);
    ++gang.ranks_checked;
    if (!rank.passed()) {
      if (unwritten[r] > 0) {
        rank.set_detail(absl::StrCat(unwritten[r], " of ", recvs[r].size(),
                                     " elements never written; ", rank.detail()));
      }
      gang.correctness = std::move(rank);
      gang.failed_rank = static_cast<int>(r);
      return gang;
    }
    if (r == 0 || rank.relative_l2_error() > gang.correctness.relative_l2_error()) {
      gang.correctness = std::move(rank);
    }
  }
  return gang;
}

}  // namespace kbench::executor::cuda
