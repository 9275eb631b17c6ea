// The noise between jobs of one result key, read from its history. Two jobs of the same spec a
// minute apart differ by more than either job's own median interval says: another tenant's
// load on a shared core, the clock, where the buffers landed. A verdict between two jobs sees
// only the samples inside each, so it would call that difference a regression (on the 2-core
// cpu device, 17.5 % of A/A pairs; docs/benchmarks.md section 13). The store keeps every
// result under its key, and the spread of those results' medians measures this noise where
// and when it is: the minimum effect of a verdict is at least the 95th percentile of |change|
// between two of them.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/connection.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

// Fewer earlier results than this give no estimate (the 95th percentile of the pairs of 8
// medians is already their second-largest difference).
inline constexpr int kMinHistoryResults = 8;
// The newest results read; older ones describe conditions that may be gone.
inline constexpr int kHistoryWindow = 200;

struct HistoryNoise {
  int results = 0;                // earlier results the estimate used
  double p95_change_percent = 0;  // 0 when results < kMinHistoryResults
};

// The 95th percentile, over every pair of `medians`, of 100 * |a - b| / min(a, b): the
// |change| an A/A diff of two of these results would have shown, taken the larger way round.
HistoryNoise BetweenJobNoise(std::span<const double> medians);

// A result that counts (as leaderboards count them): correct, not impossible, not contended.
bool Counted(const v1::HistoryEntry& entry);

struct KeyMedians {
  const v1::ResultKey* key = nullptr;  // into the history it was grouped from
  std::vector<double> medians;         // in the history's order
};

// The medians of the counted results in `history`, grouped by result key in order of each
// key's first appearance, the jobs in `exclude` left out.
std::vector<KeyMedians> CountedMediansByKey(const v1::ListHistoryResponse& history,
                                            const std::vector<std::string>& exclude = {});

// The medians in `history` of `variant`'s result key in job `baseline_id` (found by its own
// entry there; none when it is missing): counted results only, the jobs in `exclude` left out.
std::vector<double> SameKeyMedians(const v1::ListHistoryResponse& history,
                                   const std::string& baseline_id, const std::string& variant,
                                   const std::vector<std::string>& exclude);

// The noise of `variant`'s key in `baseline` from the daemon's history, `exclude` left out.
absl::StatusOr<HistoryNoise> FetchHistoryNoise(Connection& connection, const v1::Job& baseline,
                                               const std::string& variant,
                                               const std::vector<std::string>& exclude);

}  // namespace kbench::client
