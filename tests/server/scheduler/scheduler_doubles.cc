// The scheduler's test doubles.
#include "tests/server/scheduler/scheduler_doubles.h"

#include "absl/strings/str_cat.h"

namespace kbench::scheduler::testing {

absl::Time SimulatedClock::Now() {
  std::lock_guard lock(mu_);
  return now_;
}

bool SimulatedClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                               absl::Time deadline, const std::function<bool()>& done) {
  const bool finite = deadline != absl::InfiniteFuture();
  if (finite) {
    std::lock_guard own(mu_);
    deadlines_.insert(deadline);
    changed_.notify_all();
  }
  bool result = false;
  while (true) {
    if (done()) {
      result = true;
      break;
    }
    if (Now() >= deadline) break;
    // The waiter's own condition variable is notified by whoever makes done() true; time moves
    // without touching the waiter's mutex, so it is re-checked every few milliseconds.
    cv.wait_for(lock, std::chrono::milliseconds(2));
  }
  if (finite) {
    std::lock_guard own(mu_);
    deadlines_.erase(deadlines_.find(deadline));
  }
  return result;
}

void SimulatedClock::AdvanceTo(absl::Time t) {
  std::lock_guard lock(mu_);
  if (t > now_) now_ = t;
}

std::optional<absl::Time> SimulatedClock::NextDeadline(std::chrono::milliseconds real) {
  std::unique_lock lock(mu_);
  std::optional<absl::Time> next;
  changed_.wait_for(lock, real, [&] {
    auto it = deadlines_.upper_bound(now_);
    if (it != deadlines_.end()) next = *it;
    return next.has_value();
  });
  return next;
}

bool SimulatedClock::AdvanceUntil(const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + kEventTimeout;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    if (std::optional<absl::Time> next = NextDeadline(std::chrono::milliseconds(50))) {
      // A waiter registers its deadline only after it has acted, so `done` is checked again
      // here: it may have become true between the first check and the deadline appearing, and
      // moving time on would then run the waiter's next step too (a sixth start, say).
      if (done()) return true;
      AdvanceTo(*next);
    }
  }
  return done();
}

void FakeExecutorState::Push(ExecutorEvent event, std::function<void()> before) {
  std::lock_guard lock(mu);
  script.push_back({std::move(event), std::move(before)});
  cv.notify_all();
}

void FakeExecutorState::Succeed(const std::string& job_id, bool restart_executor) {
  ExecutorEvent e;
  e.type = ExecutorEvent::Type::kOutcome;
  e.outcome.set_job_id(job_id);
  e.outcome.set_restart_executor(restart_executor);
  if (restart_executor) {
    e.outcome.set_code(static_cast<int>(absl::StatusCode::kInternal));
    e.outcome.set_message("an illegal memory access was encountered");
  }
  Push(std::move(e));
}

bool FakeExecutorState::AwaitRuns(size_t n) {
  std::unique_lock lock(mu);
  return cv.wait_for(lock, kEventTimeout, [&] { return runs.size() >= n; });
}

void FakeExecutorState::Die() {
  std::lock_guard lock(mu);
  killed = true;
  cv.notify_all();
}

bool FakeExecutorState::Killed() {
  std::lock_guard lock(mu);
  return killed;
}

FakeExecutor::FakeExecutor(std::string device, std::shared_ptr<FakeExecutorState> state,
                           Clock* clock, const std::string& model)
    : state_(std::move(state)), clock_(clock) {
  info_.set_id(device);
  info_.set_name(model);
  info_.set_kind(device == "cpu" ? v1::DEVICE_KIND_CPU : v1::DEVICE_KIND_CUDA);
}

FakeExecutor::~FakeExecutor() {
  std::lock_guard lock(state_->mu);
  state_->destroyed = true;
  state_->cv.notify_all();
}

absl::Status FakeExecutor::Send(const internal::v1::RunJob& job) {
  std::lock_guard lock(state_->mu);
  if (state_->killed) return absl::UnavailableError("executor is gone");
  state_->runs.push_back(job.job_id());
  state_->specs.push_back(job.spec());
  state_->cv.notify_all();
  return absl::OkStatus();
}

ExecutorEvent FakeExecutor::Next(const std::string&, absl::Time until) {
  std::unique_lock lock(state_->mu);
  clock_->WaitUntil(state_->cv, lock, until,
                    [&] { return state_->killed || !state_->script.empty(); });
  if (!state_->script.empty()) {
    FakeExecutorState::Scripted next = std::move(state_->script.front());
    state_->script.pop_front();
    if (next.before) {
      lock.unlock();
      next.before();
    }
    return next.event;
  }
  ExecutorEvent event;
  if (state_->killed) {
    event.type = ExecutorEvent::Type::kLost;
    event.failure = ExecutorFailure::kSignal;
    event.message = "killed by signal 9";
  }
  return event;
}

void FakeExecutor::Cancel(const std::string& job_id) {
  std::lock_guard lock(state_->mu);
  state_->cancels.push_back(job_id);
  state_->cv.notify_all();
}

void FakeExecutor::Kill() {
  std::lock_guard lock(state_->mu);
  state_->killed = true;
  state_->cv.notify_all();
}

absl::StatusOr<std::unique_ptr<Executor>> FakeLauncher::Start(const std::string& device) {
  std::lock_guard lock(mu_);
  attempts_[device].push_back(clock_->Now());
  cv_.notify_all();
  if (failures_left_[device] > 0) {
    --failures_left_[device];
    return absl::UnavailableError(absl::StrCat("executor for ", device, " failed to start"));
  }
  auto state = std::make_shared<FakeExecutorState>();
  executors_[device].push_back(state);
  std::string model;
  for (const v1::DeviceInfo& d : cuda_) {
    if (d.id() == device) model = d.name();
  }
  return std::unique_ptr<Executor>(new FakeExecutor(device, state, clock_, model));
}

absl::StatusOr<std::vector<v1::DeviceInfo>> FakeLauncher::Discover() {
  std::lock_guard lock(mu_);
  return cuda_;
}

void FakeLauncher::AddCuda(int ordinal, const std::string& model) {
  std::lock_guard lock(mu_);
  v1::DeviceInfo info;
  info.set_id(absl::StrCat("cuda:", ordinal));
  info.set_name(model);
  info.set_kind(v1::DEVICE_KIND_CUDA);
  cuda_.push_back(info);
}

void FakeLauncher::FailStarts(const std::string& device, int n) {
  std::lock_guard lock(mu_);
  failures_left_[device] = n;
}

std::shared_ptr<FakeExecutorState> FakeLauncher::AwaitExecutor(const std::string& device,
                                                               size_t index) {
  std::unique_lock lock(mu_);
  if (!cv_.wait_for(lock, kEventTimeout, [&] { return executors_[device].size() > index; })) {
    return nullptr;
  }
  return executors_[device][index];
}

std::vector<absl::Time> FakeLauncher::Attempts(const std::string& device) {
  std::lock_guard lock(mu_);
  return attempts_[device];
}

void RecordingMetrics::JobFinished(JobKind, const std::string&, const std::string& state) {
  if (on_job_finished) on_job_finished();
  std::lock_guard lock(mu_);
  finished_.push_back(state);
}

void RecordingMetrics::ObserveRunDuration(JobKind, const std::string&, double) {
  std::lock_guard lock(mu_);
  ++run_durations_;
}

void RecordingMetrics::ExecutorRestarted(const std::string& device, ExecutorFailure cause) {
  std::lock_guard lock(mu_);
  restarts_[device].push_back(cause);
}

std::vector<ExecutorFailure> RecordingMetrics::Restarts(const std::string& device) {
  std::lock_guard lock(mu_);
  return restarts_[device];
}

std::vector<std::string> RecordingMetrics::Finished() {
  std::lock_guard lock(mu_);
  return finished_;
}

int RecordingMetrics::RunDurations() {
  std::lock_guard lock(mu_);
  return run_durations_;
}

}  // namespace kbench::scheduler::testing
