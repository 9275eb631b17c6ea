// Drawing buffer placements and pooling their samples.
#include "server/executor/placements.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "common/placement_limits.h"
#include "server/executor/measure/statistics.h"

namespace kbench::executor {
namespace {

constexpr int64_t kGapGranule = 256;  // the executors' tensor alignment

}  // namespace

std::vector<BufferPlacement> DrawPlacements(int count, uint64_t seed) {
  std::vector<BufferPlacement> out(static_cast<size_t>(std::max(count, 1)));
  std::mt19937_64 rng(seed ^ 0x9a7ce5);
  std::uniform_int_distribution<int64_t> granules(1, kMaxPlacementGapBytes / kGapGranule);
  for (size_t p = 1; p < out.size(); ++p) out[p].tensor_gap_bytes = granules(rng) * kGapGranule;
  return out;
}

measure::VariantSamples PoolPlacements(const std::vector<const measure::VariantSamples*>& streams) {
  measure::VariantSamples pooled = *streams.front();
  if (streams.size() == 1) return pooled;
  pooled.kept.clear();
  pooled.discarded = 0;
  pooled.measured_seconds = 0;
  size_t rounds = 0;
  for (const measure::VariantSamples* s : streams) {
    rounds = std::max(rounds, s->kept.size());
    pooled.discarded += s->discarded;
    pooled.measured_seconds += s->measured_seconds;
    pooled.wall_seconds = std::max(pooled.wall_seconds, s->wall_seconds);
  }
  for (size_t k = 0; k < rounds; ++k) {
    for (const measure::VariantSamples* s : streams) {
      if (k < s->kept.size()) pooled.kept.push_back(s->kept[k]);
    }
  }
  for (size_t p = 0; p < streams.size(); ++p) {
    if (streams[p]->decision.converged) continue;
    pooled.decision = streams[p]->decision;
    pooled.decision.reason = absl::StrCat("placement ", p + 1, " of ", streams.size(), ": ",
                                          streams[p]->decision.reason);
    break;
  }
  return pooled;
}

void DescribePlacements(const std::vector<BufferPlacement>& placements,
                        const std::vector<const measure::VariantSamples*>& streams,
                        v1::VariantResult* out) {
  if (streams.size() < 2) return;
  std::vector<double> medians;
  for (size_t p = 0; p < streams.size(); ++p) {
    v1::PlacementResult* r = out->add_placements();
    r->set_tensor_gap_bytes(placements[p].tensor_gap_bytes);
    r->set_median_seconds(measure::ComputeStatistics(streams[p]->per_launch_seconds()).median);
    r->set_samples(static_cast<int64_t>(streams[p]->kept.size()));
    medians.push_back(r->median_seconds());
  }
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  const double middle = measure::ComputeStatistics(medians).median;
  if (middle > 0) out->set_placement_spread((*hi - *lo) / middle);
}

}  // namespace kbench::executor
