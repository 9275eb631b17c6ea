// kbench.v1's history and leaderboards (issue 27: one small service per domain): ListHistory
// and GetLeaderboard, requests checked, the store's result index read, the leaderboard ranked.
// The work is in plain functions over the store (tested on their own); HistoryService gives
// them the device models of the queue's devices.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "kbench/v1/history.pb.h"
#include "server/auth/authenticator.h"
#include "server/scheduler/job_queue.h"
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

class HistoryService {
 public:
  // Both must outlive it.
  HistoryService(store::JobStore* jobs, scheduler::JobQueue* queue) : jobs_(jobs), queue_(queue) {}

  // Everyone may read the lab's history.
  absl::Status List(const auth::Identity& caller, const v1::ListHistoryRequest& request,
                    v1::ListHistoryResponse* response);
  absl::Status Leaderboard(const auth::Identity& caller, const v1::GetLeaderboardRequest& request,
                           v1::GetLeaderboardResponse* response);

 private:
  // The model name of the device with this id; the text itself when no device has the id.
  std::string DeviceModel(const std::string& device_or_model);

  store::JobStore* const jobs_;
  scheduler::JobQueue* const queue_;
};

}  // namespace kbench::api
