// When a ranked run's result counts (ranked_result.h).
#include "server/common/ranked_result.h"

#include "common/stopping_defaults.h"

namespace kbench {

bool RankedResultCounts(const v1::VariantResult& v) {
  if (v.drifted() || v.stats().samples() < 1) return false;
  if (v.converged()) return true;
  return v.median_precision() > 0 && v.median_precision() <= kDefaultMaxNoise;
}

}  // namespace kbench
