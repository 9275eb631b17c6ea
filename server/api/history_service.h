// ListHistory and GetLeaderboard: requests checked, the store's result index read, the
// leaderboard ranked. Plain functions over the store so that kbench_service.cc only wires them.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "kbench/v1/history.pb.h"
#include "server/store/job_store.h"

namespace kbench::api {

// The device model that a device id ("cuda:0") stands for; the text itself when it names no
// device (then it is a model name already).
using DeviceModelOf = std::function<std::string(const std::string&)>;

absl::Status ListHistory(store::JobStore& jobs, const v1::ListHistoryRequest& request,
                         v1::ListHistoryResponse* response);

absl::Status GetLeaderboard(store::JobStore& jobs, const DeviceModelOf& model_of,
                            const v1::GetLeaderboardRequest& request,
                            v1::GetLeaderboardResponse* response);

}  // namespace kbench::api
