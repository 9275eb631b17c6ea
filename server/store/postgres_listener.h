// LISTEN on a PostgreSQL channel from a thread of its own, with its own connection: the
// fleet's nodes learn of each other's job changes (NOTIFY, sent by the jobs table's trigger)
// without polling the table.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace kbench::store {

class PostgresListener {
 public:
  // Called with each notification's payload, from the listener's thread. Called with "" after
  // a (re)connection: notifications sent while disconnected are lost, so resynchronize.
  using Callback = std::function<void(const std::string& payload)>;

  // Connects, LISTENs on `channel` and starts the thread. UNAVAILABLE when the first connection
  // fails; later losses are retried every second until the listener is destroyed.
  static absl::StatusOr<std::unique_ptr<PostgresListener>> Start(const std::string& url,
                                                                 const std::string& channel,
                                                                 Callback on_notify);
  ~PostgresListener();
  PostgresListener(const PostgresListener&) = delete;
  PostgresListener& operator=(const PostgresListener&) = delete;

 private:
  PostgresListener(std::string url, std::string channel, Callback on_notify);
  void Loop();
  // Blocks up to the timeout for notifications; false when the connection was lost.
  bool Drain();

  const std::string url_;
  const std::string channel_;
  const Callback on_notify_;
  struct Connection;
  std::unique_ptr<Connection> connection_;
  int wake_fd_ = -1;  // an eventfd that interrupts the wait at shutdown
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace kbench::store
