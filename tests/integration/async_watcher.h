// WatchJob streams read through gRPC's callback client API, so that a test can hold thousands
// of them open without a thread each, and a tally to wait (bounded) on all of them.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "kbench/v1/service.grpc.pb.h"

namespace kbench::testing {

// Counts watchers that received their first snapshot and watchers whose stream ended.
class WatchTally {
 public:
  void Opened() {
    std::lock_guard<std::mutex> lock(mu_);
    ++opened_;
    cv_.notify_all();
  }
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    cv_.notify_all();
  }
  // False when `deadline` passes first.
  bool WaitOpened(int n, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [&] { return opened_ + done_ >= n; });
  }
  bool WaitDone(int n, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [&] { return done_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int opened_ = 0;
  int done_ = 0;
};

// One WatchJob stream; must outlive its OnDone (check done() or the tally before destroying).
class AsyncWatcher : public grpc::ClientReadReactor<v1::WatchJobResponse> {
 public:
  AsyncWatcher(v1::KbenchService::Stub& stub, const std::string& job_id, WatchTally* tally,
               std::chrono::seconds timeout)
      : tally_(tally) {
    request_.set_job_id(job_id);
    context_.set_deadline(std::chrono::system_clock::now() + timeout);
    stub.async()->WatchJob(&context_, &request_, this);
    StartRead(&response_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows with the status
    if (snapshots_++ == 0) tally_->Opened();
    last_state_ = response_.job().state();
    StartRead(&response_);
  }
  void OnDone(const grpc::Status& status) override {
    status_ = status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    tally_->Done();
  }

  void Cancel() { context_.TryCancel(); }
  bool done() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  // Valid after done().
  const grpc::Status& status() const { return status_; }
  v1::JobState last_state() const { return last_state_; }
  int snapshots() const { return snapshots_; }

 private:
  WatchTally* tally_;
  grpc::ClientContext context_;
  v1::WatchJobRequest request_;
  v1::WatchJobResponse response_;
  grpc::Status status_;
  v1::JobState last_state_ = v1::JOB_STATE_UNSPECIFIED;
  int snapshots_ = 0;
  std::mutex mu_;
  bool done_ = false;
};

}  // namespace kbench::testing
