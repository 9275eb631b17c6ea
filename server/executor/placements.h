// Buffer placements of a benchmark's variants (JobSpec.placements): where each copy of a
// variant's tensors goes, and how the samples of all copies become the variant's one result.
// A kernel that re-reads its data through the L2 can time several per cent apart from one
// placement to another (docs/benchmarks.md, section 14): a single placement is one draw.
#pragma once

#include <cstdint>
#include <vector>

#include "kbench/v1/types.pb.h"
#include "server/executor/device_runner.h"
#include "server/executor/measure/sampler.h"

namespace kbench::executor {

// `count` placements (at least one): the first with no gap, as a job of one placement lays
// its tensors out; the others with a gap drawn from `seed` (the job's input seed), a multiple
// of 256 bytes in [256 B, kMaxPlacementGapBytes], so that a rerun with the same seed leaves the
// same gaps. Each is a fresh allocation, so absolute addresses differ as well.
std::vector<BufferPlacement> DrawPlacements(int count, uint64_t seed);

// One variant's placements as one stream of samples, in the order they were taken (the sampler
// takes them round by round, so the k-th sample of each placement precedes every (k+1)-th):
// discards and measured time summed, the longest wall time, and the stop decision converged
// only if every placement's was (else the first that was not, naming its placement).
measure::VariantSamples PoolPlacements(const std::vector<const measure::VariantSamples*>& streams);

// Each placement's gap, median and sample count, and the spread of their medians: (largest -
// smallest) / the median of the medians. Nothing for a single placement.
void DescribePlacements(const std::vector<BufferPlacement>& placements,
                        const std::vector<const measure::VariantSamples*>& streams,
                        v1::VariantResult* out);

}  // namespace kbench::executor
