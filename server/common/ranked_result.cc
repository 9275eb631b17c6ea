// When a ranked run's result counts (ranked_result.h).
#include "server/common/ranked_result.h"

#include "common/stopping_defaults.h"

namespace kbench {

namespace {

// A drift larger than the precision a ranked median must reach. The drift check calls the two
// halves' medians apart when their intervals are disjoint, which with ~40,000 samples (a ranked
// run of a 50 us kernel) happens for shifts far under 0.5%: those cannot change a rank that the
// median is only asked to pin within 0.5%.
bool DriftedBeyondTheTarget(const v1::VariantResult& v) {
  if (!v.drifted()) return false;
  const double median = v.stats().median_seconds();
  if (median <= 0) return true;
  const double shift = v.first_half_median_seconds() - v.second_half_median_seconds();
  return (shift < 0 ? -shift : shift) / median > kDefaultMaxNoise;
}

}  // namespace

bool RankedResultCounts(const v1::VariantResult& v) {
  if (DriftedBeyondTheTarget(v) || v.stats().samples() < 1) return false;
  if (v.converged()) return true;
  // A precision of exactly 0 is a 95% interval whose two ends fall on the same timer value (seen
  // with ~42,000 samples of a 56 us softmax on an H100, whose event times come in 32 ns steps):
  // the most precise median there is, not a missing one.
  return v.median_precision() >= 0 && v.median_precision() <= kDefaultMaxNoise;
}

}  // namespace kbench
