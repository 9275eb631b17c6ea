// How many large requests kbenchd reads at once (issue 24, item 4). The upload methods
// (SubmitJob, SubmitSweep, AddVariant) take up to the transport's 40 MiB cap, and an
// authenticated one is read, parsed and copied into the store's row before anything can refuse
// it: about 100 MiB of kbenchd's memory for a 35 MiB request, 3.4 GiB for 32 at once (measured,
// docs/benchmarks.md §17). A call holds a pass while its request is read and handled; a call
// that finds every pass taken waits (its request stays in the transport, whose flow control
// stops the sender) for at most the gate's wait or its own deadline, then gets UNAVAILABLE
// with a retry hint. Small requests pass in milliseconds, so the queue is short in practice.
#pragma once

#include <chrono>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kbench::api {

inline constexpr int kDefaultConcurrentUploads = 2;
inline constexpr absl::Duration kDefaultUploadWait = absl::Seconds(20);

class UploadGate {
 public:
  explicit UploadGate(int passes = kDefaultConcurrentUploads,
                      absl::Duration max_wait = kDefaultUploadWait);
  UploadGate(const UploadGate&) = delete;
  UploadGate& operator=(const UploadGate&) = delete;

  // Held while one upload is read and handled; gives its pass back when destroyed.
  class Pass {
   public:
    explicit Pass(UploadGate* gate) : gate_(gate) {}
    Pass(Pass&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Pass& operator=(Pass&&) = delete;
    ~Pass();

   private:
    UploadGate* gate_;
  };

  // Before serving: how many passes and how long a call may wait for one.
  void Configure(int passes, absl::Duration max_wait);

  // A pass, after waiting at most the gate's wait and never past `call_deadline` less a
  // second (so that the refusal, not DEADLINE_EXCEEDED, reaches the caller); UNAVAILABLE
  // naming the limit otherwise.
  absl::StatusOr<Pass> Enter(std::chrono::system_clock::time_point call_deadline);

  int in_use() const;

 private:
  void Leave();

  mutable absl::Mutex mu_;
  int passes_ ABSL_GUARDED_BY(mu_);
  absl::Duration max_wait_ ABSL_GUARDED_BY(mu_);
  int in_use_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace kbench::api
