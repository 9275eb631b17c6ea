// kbctl's tables of results over time: `kbctl history` and `kbctl leaderboard`.
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"

namespace kbench::client {

// One row per result, as the server returned them (newest first); a J/LAUNCH column where any
// result's energy was measured.
std::string RenderHistory(const v1::ListHistoryResponse& history);

// The ranked variants, one row per shape under each, then the variants missing a shape.
// `by_energy`: the board ranks energy per launch (GetLeaderboardRequest.by_energy).
std::string RenderLeaderboard(const v1::GetLeaderboardResponse& board, bool by_energy = false);

}  // namespace kbench::client
