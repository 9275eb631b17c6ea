// When a ranked run's result counts on a leaderboard (issue 23, item 7): one rule, read by the
// result index (scheduler) and by the confirming re-run (api).
#pragma once

#include "kbench/v1/types.pb.h"

namespace kbench {

// The variant's pooled median is what a leaderboard ranks, so its precision is what must be
// reached: the stopping rule converged, or the pooled median's 95% interval is within the
// default noise target even though a placement's own rule timed out (eight placements of a
// 50 us kernel cannot each collect 0.5 s of measured time within the 15 s timeout on an H100;
// their ~40000 pooled samples pin the median far closer than 0.5%). Never a run whose halves'
// medians drifted apart by more than that target.
bool RankedResultCounts(const v1::VariantResult& v);

}  // namespace kbench
