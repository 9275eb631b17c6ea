// The scheduler against a simulated clock and scripted executors: runs, hang deadlines, cancel
// races, start failures and back-off, devices that disappear or come back, cuda:any, sticky
// errors, shutdown. No fork, no sleep: time only moves when a test moves it.
#include "server/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "server/store/resilient_job_store.h"
#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/scheduler/scheduler_fixture.h"
#include "tests/server/store/failing_vfs.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::FakeExecutorState;
using ::kbench::scheduler::testing::FakeLauncher;
using ::kbench::scheduler::testing::kEventTimeout;
using ::kbench::scheduler::testing::RecordingMetrics;
using ::kbench::scheduler::testing::SchedulerTest;
using ::kbench::scheduler::testing::SimulatedClock;

TEST_F(SchedulerTest, RunsAJobAndPublishesItsProgressBeforeItsEnd) {
  StartScheduler();
  const std::string id = Submit("cpu");
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  EXPECT_TRUE(AwaitState(id, store::JobState::kRunning));
  ExecutorEvent progress;
  progress.type = ExecutorEvent::Type::kProgress;
  progress.progress.set_samples(7);
  cpu->Push(progress);
  cpu->Succeed(id);
  ASSERT_TRUE(AwaitState(id, store::JobState::kSucceeded));
  EXPECT_EQ(Job(id).attempts, 1);
  EXPECT_EQ(metrics_.Finished(), std::vector<std::string>{"succeeded"});
  EXPECT_EQ(metrics_.RunDurations(), 1);
}

// Issue 27, item 1: a submit creates the job through the lifecycle (stored QUEUED, counted,
// watchers told) and queues it; a retry with the same key creates and queues nothing.
TEST_F(SchedulerTest, SubmitCreatesThroughTheLifecycleAndQueuesOnce) {
  StartScheduler();
  v1::JobSpec spec;
  spec.set_kernel("square");
  spec.set_device("cpu");
  spec.set_owner("alice");
  store::JobRecord r;
  r.id = "submitted";
  r.device = "cpu";
  r.kernel = "square";
  r.owner = "alice";
  r.idempotency_key = "k";
  spec.SerializeToString(&r.spec);
  absl::StatusOr<std::pair<store::JobRecord, bool>> first = scheduler_->Submit(r);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->second);
  EXPECT_EQ(first->first.create_time_ns, absl::ToUnixNanos(clock_.Now()));
  r.id = "retried";
  absl::StatusOr<std::pair<store::JobRecord, bool>> again = scheduler_->Submit(r);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(again->second);
  EXPECT_EQ(again->first.id, "submitted");
  EXPECT_EQ(jobs_->Get("retried").status().code(), absl::StatusCode::kNotFound);
  // Queued or running, once: nothing ends before the executor is told to succeed.
  EXPECT_EQ(scheduler_->Devices()[0].queue_depth(), 1);
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  cpu->Succeed("submitted");
  ASSERT_TRUE(AwaitState("submitted", store::JobState::kSucceeded));
}

TEST_F(SchedulerTest, AJobWhoseStartAFullDiskRefusesStaysQueuedAndRunsOnceItTakesWrites) {
  store::testing::FailingVfs::Install();
  auto opened = store::JobStore::Open(data_dir_);
  ASSERT_TRUE(opened.ok()) << opened.status();
  auto resilient = std::make_unique<store::ResilientJobStore>(
      *std::move(opened), store::WriteRetryPolicy{1, absl::Milliseconds(1)},
      store::StoreWhereabouts{data_dir_, ""});
  store::ResilientJobStore* store = resilient.get();
  jobs_ = std::move(resilient);
  artifacts_ =
      std::make_unique<store::ArtifactStore>(data_dir_, jobs_.get(), store::RetentionPolicy{0, 0});
  lifecycle_ = std::make_unique<JobLifecycle>(jobs_.get(), &metrics_, &events_, &clock_);
  StartScheduler();
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  const store::JobRecord job = Stored("cpu");
  {
    store::testing::ScopedFullDisk full;
    scheduler_->Enqueue(job);
    // Three refused starts, the worker waiting longer before each.
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(clock_.AdvanceUntil([&] { return !store->Writable(); }));
      clock_.AdvanceTo(clock_.Now() + absl::Seconds(5));
    }
    EXPECT_EQ(Job(job.id).state, store::JobState::kQueued);
    EXPECT_EQ(Job(job.id).attempts, 0);
    std::lock_guard lock(cpu->mu);
    EXPECT_TRUE(cpu->runs.empty());
  }
  ASSERT_TRUE(clock_.AdvanceUntil([&] {
    std::lock_guard lock(cpu->mu);
    return !cpu->runs.empty();
  }));
  cpu->Succeed(job.id);
  ASSERT_TRUE(AwaitState(job.id, store::JobState::kSucceeded));
  EXPECT_EQ(Job(job.id).attempts, 1);
}

TEST_F(SchedulerTest, CountsAFinishedJobBeforeTheStoreSaysItIsFinished) {
  StartScheduler();
  std::vector<size_t> succeeded_when_counted;
  metrics_.on_job_finished = [&] {
    succeeded_when_counted.push_back(jobs_->ListByState(store::JobState::kSucceeded)->size());
  };
  const std::string id = Submit("cpu");
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  cpu->Succeed(id);
  ASSERT_TRUE(AwaitState(id, store::JobState::kSucceeded));
  // A client that sees SUCCEEDED and then scrapes must find the job counted.
  EXPECT_EQ(succeeded_when_counted, std::vector<size_t>{0});
}

TEST_F(SchedulerTest, KillsAHungExecutorAtTheJobDeadlineAndRunsTheNextJobOnAFreshOne) {
  StartScheduler();
  const std::string hung = Submit("cpu", /*timeout_s=*/1);
  const std::string next = Submit("cpu");
  std::shared_ptr<FakeExecutorState> first = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(first->AwaitRuns(1));
  const absl::Time started = clock_.Now();
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return first->Killed(); }));
  // 1 s timeout + 10 s slack, not earlier.
  EXPECT_GE(clock_.Now() - started, absl::Seconds(11));
  ASSERT_TRUE(AwaitState(hung, store::JobState::kFailed));
  EXPECT_NE(Job(hung).error.find("hung"), std::string::npos) << Job(hung).error;
  EXPECT_EQ(Job(hung).code, absl::StatusCode::kUnavailable);
  EXPECT_EQ(metrics_.Restarts("cpu"), std::vector<ExecutorFailure>{ExecutorFailure::kHung});
  std::shared_ptr<FakeExecutorState> second = launcher_.AwaitExecutor("cpu", 1);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(second->AwaitRuns(1));
  second->Succeed(next);
  EXPECT_TRUE(AwaitState(next, store::JobState::kSucceeded));
}

TEST_F(SchedulerTest, ACancelRacingTheJobsFinishDoesNotKillTheNextJob) {
  StartScheduler();
  const std::string a = Submit("cpu");
  const std::string b = Submit("cpu");
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  // The cancel lands after the executor sent A's outcome and before the scheduler recorded it:
  // the window in which a kill deadline used to outlive A and fire on B.
  ExecutorEvent outcome;
  outcome.type = ExecutorEvent::Type::kOutcome;
  outcome.outcome.set_job_id(a);
  cpu->Push(outcome,
            [&] { EXPECT_TRUE(scheduler_->Cancel(a, std::chrono::milliseconds(0)).ok()); });
  ASSERT_TRUE(cpu->AwaitRuns(2));  // B is running on the same executor
  EXPECT_EQ(Job(a).state, store::JobState::kSucceeded);
  EXPECT_EQ(cpu->cancels, std::vector<std::string>{a});
  // Well past A's grace period, B is still running, on the executor it started on.
  const absl::Time past_grace = clock_.Now() + options_.cancel_grace + absl::Seconds(1);
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return clock_.Now() >= past_grace; }));
  EXPECT_FALSE(cpu->Killed());
  EXPECT_EQ(Job(b).state, store::JobState::kRunning);
  cpu->Succeed(b);
  EXPECT_TRUE(AwaitState(b, store::JobState::kSucceeded));
  EXPECT_TRUE(metrics_.Restarts("cpu").empty());
}

TEST_F(SchedulerTest, KillsAnExecutorThatIgnoresACancelAfterTheGracePeriod) {
  StartScheduler();
  const std::string id = Submit("cpu", /*timeout_s=*/100);
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  ASSERT_TRUE(scheduler_->Cancel(id, std::chrono::milliseconds(0)).ok());
  const absl::Time cancelled = clock_.Now();
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return cpu->Killed(); }));
  EXPECT_GE(clock_.Now() - cancelled, options_.cancel_grace);
  ASSERT_TRUE(AwaitState(id, store::JobState::kCancelled));
  EXPECT_EQ(metrics_.Restarts("cpu"), std::vector<ExecutorFailure>{ExecutorFailure::kCancelKill});
}

TEST_F(SchedulerTest, CancelsAQueuedJobAtOnce) {
  StartScheduler();
  const std::string running = Submit("cpu");
  const std::string queued = Submit("cpu");
  ASSERT_TRUE(launcher_.AwaitExecutor("cpu", 0)->AwaitRuns(1));
  ASSERT_TRUE(scheduler_->Cancel(queued, std::chrono::milliseconds(0)).ok());
  EXPECT_EQ(Job(queued).state, store::JobState::kCancelled);
  EXPECT_EQ(Job(running).state, store::JobState::kRunning);
  EXPECT_EQ(scheduler_->Cancel(queued, std::chrono::milliseconds(0)).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(SchedulerTest, FailsTheJobWithTheSignalWhenItsExecutorDies) {
  StartScheduler();
  const std::string id = Submit("cpu");
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  cpu->Die();  // as if the kernel's OOM killer took it
  ASSERT_TRUE(AwaitState(id, store::JobState::kFailed));
  EXPECT_EQ(metrics_.Restarts("cpu"), std::vector<ExecutorFailure>{ExecutorFailure::kSignal});
  EXPECT_NE(launcher_.AwaitExecutor("cpu", 1), nullptr);
}

TEST_F(SchedulerTest, RestartsTheExecutorAfterAStickyError) {
  launcher_.AddCuda(0);
  StartScheduler();
  const std::string id = Submit("cuda:0");
  std::shared_ptr<FakeExecutorState> gpu = launcher_.AwaitExecutor("cuda:0", 0);
  ASSERT_TRUE(gpu->AwaitRuns(1));
  gpu->Succeed(id, /*restart_executor=*/true);
  ASSERT_TRUE(AwaitState(id, store::JobState::kFailed));
  EXPECT_EQ(Job(id).code, absl::StatusCode::kInternal);
  ASSERT_NE(launcher_.AwaitExecutor("cuda:0", 1), nullptr);
  EXPECT_EQ(metrics_.Restarts("cuda:0"),
            std::vector<ExecutorFailure>{ExecutorFailure::kStickyError});
}

// Issue 23, item 4: --isolate-owners gives each owner's run of jobs a fresh executor.
TEST_F(SchedulerTest, RestartsTheExecutorBetweenOwnersWhenIsolatingThem) {
  options_.isolate_owners = true;
  launcher_.AddCuda(0);
  StartScheduler();
  const auto submit_as = [&](const std::string& owner) {
    store::JobRecord r = Stored("cuda:0");
    v1::JobSpec spec;
    spec.ParseFromString(r.spec);
    spec.set_owner(owner);
    spec.SerializeToString(&r.spec);
    r.owner = owner;
    scheduler_->Enqueue(r);
    return r.id;
  };
  const std::string a1 = submit_as("alice");
  std::shared_ptr<FakeExecutorState> first = launcher_.AwaitExecutor("cuda:0", 0);
  ASSERT_TRUE(first->AwaitRuns(1));
  const std::string a2 = submit_as("alice");
  first->Succeed(a1);
  ASSERT_TRUE(first->AwaitRuns(2));  // the same owner keeps the executor
  const std::string b1 = submit_as("bob");
  first->Succeed(a2);
  ASSERT_TRUE(AwaitState(a2, store::JobState::kSucceeded));
  std::shared_ptr<FakeExecutorState> second = launcher_.AwaitExecutor("cuda:0", 1);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(second->AwaitRuns(1));
  EXPECT_EQ(second->runs, std::vector<std::string>{b1});
  EXPECT_EQ(first->runs, (std::vector<std::string>{a1, a2}));
  second->Succeed(b1);
  ASSERT_TRUE(AwaitState(b1, store::JobState::kSucceeded));
  EXPECT_EQ(metrics_.Restarts("cuda:0"),
            std::vector<ExecutorFailure>{ExecutorFailure::kOwnerChanged});
}

// Issue 23, item 7: a ranked run that succeeded is handed to kbenchd for its confirming re-run;
// the re-run itself, and unranked jobs, are not.
TEST_F(SchedulerTest, HandsASucceededRankedRunOnceToTheRankedObserver) {
  StartScheduler();
  std::mutex mu;
  std::vector<std::string> seen;
  scheduler_->SetRankedObserver(
      [&](const std::string& id, const v1::JobSpec&, const v1::JobResult&) {
        std::lock_guard lock(mu);
        seen.push_back(id);
      });
  const auto submit = [&](bool ranked, const std::string& confirms) {
    store::JobRecord r = Stored("cpu", 1, [&](v1::JobSpec* spec) {
      spec->set_ranked(ranked);
      spec->set_confirms_job(confirms);
    });
    scheduler_->Enqueue(r);
    return r.id;
  };
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  const std::string plain = submit(false, "");
  const std::string ranked = submit(true, "");
  const std::string confirmation = submit(true, ranked);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(cpu->AwaitRuns(i + 1));
    cpu->Succeed(cpu->runs[i]);
  }
  ASSERT_TRUE(AwaitState(confirmation, store::JobState::kSucceeded));
  ASSERT_TRUE(AwaitState(plain, store::JobState::kSucceeded));
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, std::vector<std::string>{ranked});
}

TEST_F(SchedulerTest, RetriesAFailingExecutorWithCappedBackoffAndServesAgainWhenItStarts) {
  launcher_.AddCuda(0);
  launcher_.FailStarts("cuda:0", 8);
  options_.max_start_failures = 5;
  StartScheduler();
  EXPECT_EQ(Health("kbench.device.cuda:0"), true);  // 1 failure: still retrying, usable
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return State("cuda:0") == v1::DEVICE_STATE_FAILED; }));
  EXPECT_EQ(launcher_.Attempts("cuda:0").size(), 5u);
  EXPECT_EQ(Health("kbench.device.cuda:0"), false);
  EXPECT_EQ(Health(""), true);  // the cpu device still serves
  EXPECT_EQ(scheduler_->ResolveDevice("cuda:0").status().code(), absl::StatusCode::kUnavailable);
  // Unlike before, it is never given up: the ninth start succeeds.
  std::shared_ptr<FakeExecutorState> back;
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return launcher_.Attempts("cuda:0").size() >= 9; }));
  back = launcher_.AwaitExecutor("cuda:0", 0);
  ASSERT_NE(back, nullptr);
  std::vector<absl::Time> at = launcher_.Attempts("cuda:0");
  std::vector<absl::Duration> gaps;
  for (size_t i = 1; i < at.size(); ++i) gaps.push_back(at[i] - at[i - 1]);
  const std::vector<absl::Duration> expected = {
      absl::Seconds(1),  absl::Seconds(2),  absl::Seconds(4),  absl::Seconds(8),
      absl::Seconds(16), absl::Seconds(30), absl::Seconds(30), absl::Seconds(30)};
  EXPECT_EQ(gaps, expected);
  ASSERT_TRUE(scheduler_->ResolveDevice("cuda:0").ok());
  EXPECT_EQ(State("cuda:0"), v1::DEVICE_STATE_READY);
  EXPECT_EQ(Health("kbench.device.cuda:0"), true);
}

TEST_F(SchedulerTest, FailsQueuedJobsOfADeviceThatStopsStartingInsteadOfStrandingThem) {
  launcher_.AddCuda(0);
  launcher_.FailStarts("cuda:0", 100);
  options_.max_start_failures = 2;
  StartScheduler();
  const std::string queued = Submit("cuda:0");  // accepted while the device still counts usable
  ASSERT_TRUE(AwaitState(queued, store::JobState::kQueued));
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return Job(queued).state == store::JobState::kFailed; }));
  EXPECT_EQ(Job(queued).code, absl::StatusCode::kUnavailable);
  // One submitted just as the device failed (its ResolveDevice passed earlier) fails too.
  const std::string late = Submit("cuda:0");
  EXPECT_EQ(Job(late).state, store::JobState::kFailed);
}

TEST_F(SchedulerTest, ServerIsNotServingWhenNoDeviceIsUsable) {
  options_.max_start_failures = 1;
  StartScheduler();
  EXPECT_EQ(Health(""), true);
  EXPECT_EQ(Health("kbench.device.cpu"), true);
  launcher_.FailStarts("cpu", 1000);
  const std::string id = Submit("cpu");
  std::shared_ptr<FakeExecutorState> cpu = launcher_.AwaitExecutor("cpu", 0);
  ASSERT_TRUE(cpu->AwaitRuns(1));
  cpu->Die();
  ASSERT_TRUE(AwaitState(id, store::JobState::kFailed));
  ASSERT_TRUE(clock_.AdvanceUntil([&] { return Health("") == false; }));
  EXPECT_EQ(Health("kbench.device.cpu"), false);
}

TEST_F(SchedulerTest, StartFailsWhenTheCpuExecutorCannotStart) {
  launcher_.FailStarts("cpu", 1);
  scheduler_ = std::make_unique<Scheduler>(options_, &launcher_, &clock_, jobs_.get(),
                                           artifacts_.get(), &metrics_, &events_);
  // The cpu executor is required: Start fails and says so.
  EXPECT_EQ(scheduler_->Start().code(), absl::StatusCode::kUnavailable);
}

TEST_F(SchedulerTest, FailsAQueuedJobWhoseDeviceIsMissingAfterARestart) {
  const store::JobRecord gone = Stored("cuda:3");
  StartScheduler();  // discovery finds no cuda:3
  EXPECT_EQ(Job(gone.id).state, store::JobState::kFailed);
  EXPECT_EQ(Job(gone.id).code, absl::StatusCode::kFailedPrecondition);
}

TEST_F(SchedulerTest, RequeuesAJobThatWasRunningWhenTheDaemonDied) {
  const store::JobRecord r = Stored("cpu");
  ASSERT_TRUE(lifecycle_->Start(r.id).ok());  // daemon "dies" here
  StartScheduler();
  ASSERT_TRUE(launcher_.AwaitExecutor("cpu", 0)->AwaitRuns(1));
  EXPECT_EQ(Job(r.id).attempts, 2);
}

TEST_F(SchedulerTest, RoutesCudaAnyToTheLeastLoadedUsableGpu) {
  launcher_.AddCuda(0);
  launcher_.AddCuda(1);
  StartScheduler();
  Submit("cuda:0");
  ASSERT_TRUE(launcher_.AwaitExecutor("cuda:0", 0)->AwaitRuns(1));
  absl::StatusOr<v1::DeviceInfo> any = scheduler_->ResolveDevice("cuda:any");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(any->id(), "cuda:1");
  absl::StatusOr<v1::DeviceInfo> fallback = scheduler_->ResolveDevice("");
  ASSERT_TRUE(fallback.ok());
  EXPECT_EQ(fallback->id(), "cuda:1");
  EXPECT_EQ(scheduler_->ResolveDevice("cuda:7").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scheduler_->ResolveDevice("gpu0").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SchedulerTest, RefusesCudaAnyOnAHostWithoutAGpu) {
  StartScheduler();
  EXPECT_EQ(scheduler_->ResolveDevice("cuda:any").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(scheduler_->ResolveDevice("")->id(), "cpu");
}

TEST_F(SchedulerTest, ShutdownPutsTheRunningJobBackInTheQueue) {
  StartScheduler();
  const std::string id = Submit("cpu");
  ASSERT_TRUE(launcher_.AwaitExecutor("cpu", 0)->AwaitRuns(1));
  scheduler_->Shutdown();
  EXPECT_EQ(Job(id).state, store::JobState::kQueued);
  EXPECT_TRUE(metrics_.Finished().empty());
}

}  // namespace
}  // namespace kbench::scheduler
