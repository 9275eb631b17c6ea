// The noise between jobs of one result key, read from its history. Two jobs of the same spec a
// minute apart differ by more than either job's own median interval says: another tenant's
// load on a shared core, the clock, where the buffers landed. The store keeps every result
// under its key, and the spread of those results' medians measures this noise where and when it
// is (common/stats/between_job_noise.h: a robust scale over the newest segment, after the last
// step). A verdict is only as good as that history, so only comparable results enter it:
// counted ones, of the same key (placements included) and the same kind of stopping rule.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/connection.h"
#include "common/stats/between_job_noise.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client {

// The newest results read; older ones describe conditions that may be gone.
inline constexpr int kHistoryWindow = 200;

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

// The medians in `history` (newest first, as ListHistory returns them) of `variant`'s result key
// in job `baseline_id`, found by its own entry there (none when it is missing): counted results
// of the same key and the same kind of stopping rule (HistoryEntry.custom_stopping), the jobs in
// `exclude` left out.
std::vector<double> SameKeyMedians(const v1::ListHistoryResponse& history,
                                   const std::string& baseline_id, const std::string& variant,
                                   const std::vector<std::string>& exclude);

// The between-job noise of `variant`'s key in job `baseline_id`, from the medians above.
analysis::BetweenJobNoise NoiseOfKey(const v1::ListHistoryResponse& history,
                                     const std::string& baseline_id, const std::string& variant,
                                     const std::vector<std::string>& exclude);

// The between-job noise of `variant`'s key in `baseline` from the daemon's history, `exclude`
// left out.
absl::StatusOr<analysis::BetweenJobNoise> FetchHistoryNoise(
    Connection& connection, const v1::Job& baseline, const std::string& variant,
    const std::vector<std::string>& exclude);

}  // namespace kbench::client
