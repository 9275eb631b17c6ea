// Test doubles for the scheduler: a simulated clock that tests advance (deadlines jump, nothing
// sleeps), a scripted executor and its launcher, and metrics that record what they are told.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/executor.h"

namespace kbench::scheduler::testing {

// Bound on every real-time wait of a test for the scheduler's threads: an event that does not
// come within it is a failure, not a slow pass.
inline constexpr auto kEventTimeout = std::chrono::seconds(20);

class SimulatedClock : public Clock {
 public:
  absl::Time Now() override;
  bool WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                 absl::Time deadline, const std::function<bool()>& done) override;
  void AdvanceTo(absl::Time t);
  // The earliest deadline after Now() that some thread waits for; waits up to `real` for one.
  std::optional<absl::Time> NextDeadline(std::chrono::milliseconds real);
  // Jumps from deadline to deadline until `done()`; false when it never holds.
  bool AdvanceUntil(const std::function<bool()>& done);

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  absl::Time now_ = absl::FromUnixSeconds(1700000000);
  std::multiset<absl::Time> deadlines_;
};

// What one scripted executor was sent and did; shared between the executor and the test.
struct FakeExecutorState {
  struct Scripted {
    ExecutorEvent event;
    // Run by the worker just before the event is delivered (to interleave a cancel exactly).
    std::function<void()> before;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> runs;   // job ids sent
  std::vector<v1::JobSpec> specs;  // their specs, as sent
  std::vector<std::string> cancels;
  std::deque<Scripted> script;
  bool killed = false;
  bool destroyed = false;

  void Push(ExecutorEvent event, std::function<void()> before = nullptr);
  void Succeed(const std::string& job_id, bool restart_executor = false);
  // Waits (bounded) until `n` jobs were sent; false on timeout.
  bool AwaitRuns(size_t n);
  bool Killed();
  // The process dies by itself (as under the OOM killer): Next reports it lost to a signal.
  void Die();
};

class FakeExecutor : public Executor {
 public:
  // `model`: the device's name (a GPU model), as a real executor reports it.
  FakeExecutor(std::string device, std::shared_ptr<FakeExecutorState> state, Clock* clock,
               const std::string& model = "");
  ~FakeExecutor() override;
  const v1::DeviceInfo& info() const override { return info_; }
  absl::Status Send(const internal::v1::RunJob& job) override;
  ExecutorEvent Next(const std::string& job_id, absl::Time until) override;
  void Cancel(const std::string& job_id) override;
  void Kill() override;
  std::string Bury() override { return "killed by signal 9 (Killed) sent by kbenchd"; }

 private:
  v1::DeviceInfo info_;
  std::shared_ptr<FakeExecutorState> state_;
  Clock* clock_;
};

class FakeLauncher : public ExecutorLauncher {
 public:
  explicit FakeLauncher(Clock* clock) : clock_(clock) {}
  absl::StatusOr<std::unique_ptr<Executor>> Start(const std::string& device) override;
  absl::StatusOr<std::vector<v1::DeviceInfo>> Discover() override;

  void AddCuda(int ordinal, const std::string& model = "");
  // The next `n` starts of `device` fail.
  void FailStarts(const std::string& device, int n);
  // Waits (bounded) for the `index`-th executor of `device` (0 = first) to be started.
  std::shared_ptr<FakeExecutorState> AwaitExecutor(const std::string& device, size_t index);
  // Simulated times of every start attempt of `device`.
  std::vector<absl::Time> Attempts(const std::string& device);

 private:
  Clock* clock_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<v1::DeviceInfo> cuda_;
  std::map<std::string, int> failures_left_;
  std::map<std::string, std::vector<absl::Time>> attempts_;
  std::map<std::string, std::vector<std::shared_ptr<FakeExecutorState>>> executors_;
};

class RecordingMetrics : public metrics::Metrics {
 public:
  // Called inside JobFinished: lets a test look at the store at the moment of counting.
  std::function<void()> on_job_finished;

  std::string BoundAddress() const override { return ""; }
  void JobSubmitted(JobKind, const std::string&) override {}
  void JobFinished(JobKind, const std::string& device, const std::string& state) override;
  void SetQueueDepth(const std::string&, int64_t) override {}
  void ObserveQueueWait(const std::string&, double) override {}
  void ObserveRunDuration(JobKind, const std::string&, double) override;
  void ExecutorRestarted(const std::string& device, ExecutorFailure cause) override;
  void ObserveRpc(const std::string&, const std::string&, double) override {}
  void SetArtifactBytes(int64_t) override {}
  void AddGpu(const std::string&, const std::string&, const std::string&, int) override {}

  std::vector<ExecutorFailure> Restarts(const std::string& device);
  std::vector<std::string> Finished();
  int RunDurations();

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<ExecutorFailure>> restarts_;
  std::vector<std::string> finished_;
  int run_durations_ = 0;
};

}  // namespace kbench::scheduler::testing
