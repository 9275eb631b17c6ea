// One compile at a time per host (issue 24, item 1): NVRTC may take gigabytes; every executor
// of a kbenchd (one per GPU) takes an flock on the same file under the data directory before it
// starts a compile child, so that their compiles queue instead of adding up.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::executor::sandbox {

class CompileLock {
 public:
  // Waits for the lock on `path` (created 0600 if absent), polling every `poll`, until it is
  // free or `*cancelled` (may be null) becomes true: CANCELLED then. An empty path takes no
  // lock (a kbench-executor started by hand). INTERNAL when the file cannot be opened.
  static absl::StatusOr<CompileLock> Acquire(
      const std::string& path, const std::atomic<bool>* cancelled,
      std::chrono::milliseconds poll = std::chrono::milliseconds(20));

  CompileLock(CompileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  CompileLock& operator=(CompileLock&&) = delete;
  CompileLock(const CompileLock&) = delete;
  // Releases the lock (closing the descriptor drops the flock).
  ~CompileLock();

 private:
  explicit CompileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace kbench::executor::sandbox
