// Multi-GPU jobs (issue 30): the gang line's rules on their own, then a scheduler with fake CUDA
// devices: all or nothing, no deadlock between crossed gangs, no starvation behind one-device
// jobs, N x the time charged, cancel while waiting, and the devices a submit resolves.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/scheduler/gang_line.h"
#include "server/scheduler/scheduler.h"
#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/scheduler/scheduler_fixture.h"

namespace kbench::scheduler {
namespace {

using ::kbench::scheduler::testing::FakeExecutorState;
using ::kbench::scheduler::testing::kEventTimeout;
using ::kbench::scheduler::testing::SchedulerTest;

// --- The line alone -------------------------------------------------------------------------

GangLine::DeviceIdleFn IdleExcept(std::set<std::string> busy) {
  return [busy](const std::string& d) { return !busy.contains(d); };
}

TEST(GangLine, GrantsAllDevicesAtOnceOrNone) {
  GangLine line;
  line.Join("a", {"cuda:0", "cuda:1"});
  EXPECT_TRUE(line.Grant(IdleExcept({"cuda:1"})).empty());
  EXPECT_FALSE(line.Granted("a"));
  EXPECT_EQ(line.HolderOf("cuda:0"), std::nullopt) << "no partial hold while waiting";
  // Both devices drain: neither starts a job of its own queue while the gang waits.
  EXPECT_TRUE(line.Blocks("cuda:0"));
  EXPECT_TRUE(line.Blocks("cuda:1"));
  EXPECT_FALSE(line.Blocks("cuda:2"));
  EXPECT_EQ(line.Grant(IdleExcept({})), std::vector<std::string>{"a"});
  EXPECT_EQ(line.HolderOf("cuda:0"), "a");
  EXPECT_EQ(line.HolderOf("cuda:1"), "a");
  line.Leave("a");
  EXPECT_FALSE(line.Blocks("cuda:0"));
  EXPECT_TRUE(line.empty());
}

TEST(GangLine, CrossedGangsRunOneAfterTheOtherWithoutDeadlock) {
  GangLine line;
  line.Join("a", {"cuda:0", "cuda:1"});
  line.Join("b", {"cuda:1", "cuda:0"});
  EXPECT_EQ(line.Grant(IdleExcept({})), std::vector<std::string>{"a"});
  EXPECT_TRUE(line.Grant(IdleExcept({})).empty());
  line.Leave("a");
  EXPECT_EQ(line.Grant(IdleExcept({})), std::vector<std::string>{"b"});
}

TEST(GangLine, ALaterGangDoesNotOvertakeAnEarlierOneOnASharedDevice) {
  GangLine line;
  line.Join("first", {"cuda:0", "cuda:1"});      // cuda:1 still busy
  line.Join("later", {"cuda:0", "cuda:2"});      // all its devices idle, but shares cuda:0
  line.Join("elsewhere", {"cuda:3", "cuda:4"});  // shares nothing: goes at once
  EXPECT_EQ(line.Grant(IdleExcept({"cuda:1"})), std::vector<std::string>{"elsewhere"});
  EXPECT_EQ(line.Grant(IdleExcept({})), std::vector<std::string>{"first"});
  line.Leave("first");
  EXPECT_EQ(line.Grant(IdleExcept({})), std::vector<std::string>{"later"});
}

TEST(GangLine, AGangThatStopsWaitingFreesItsDevices) {
  GangLine line;
  line.Join("a", {"cuda:0", "cuda:1"});
  line.Join("a", {"cuda:0", "cuda:1"});  // joining twice is once
  line.Leave("a");
  EXPECT_FALSE(line.Blocks("cuda:0"));
  EXPECT_TRUE(line.empty());
}

// --- A scheduler with fake CUDA devices ---------------------------------------------------

class GangSchedulingTest : public SchedulerTest {
 protected:
  // A QUEUED job on `devices` (lead first), as SubmitJob stores it, given to the scheduler.
  std::string SubmitGang(const std::vector<std::string>& devices, const std::string& owner = "") {
    store::JobRecord r = Stored(devices.front(), 1, [&](v1::JobSpec* spec) {
      for (const std::string& d : devices) spec->add_devices(d);
      spec->set_owner(owner);
    });
    r.owner = owner;
    scheduler_->Enqueue(r);
    return r.id;
  }
  bool Sent(const std::string& device, const std::string& job) {
    std::shared_ptr<FakeExecutorState> e = launcher_.AwaitExecutor(device, 0);
    std::lock_guard lock(e->mu);
    return std::find(e->runs.begin(), e->runs.end(), job) != e->runs.end();
  }
  // Waits (real time, bounded) until `job` was sent to `device`'s executor.
  bool AwaitSent(const std::string& device, const std::string& job) {
    const auto until = std::chrono::steady_clock::now() + kEventTimeout;
    while (std::chrono::steady_clock::now() < until) {
      if (Sent(device, job)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  void Finish(const std::string& device, const std::string& job) {
    launcher_.AwaitExecutor(device, 0)->Succeed(job);
    ASSERT_TRUE(AwaitState(job, store::JobState::kSucceeded)) << job;
  }
  // Two devices; `busy` runs on cuda:1 when `gang` (cuda:0 and cuda:1) is queued.
  void GangBehindABusyDevice(std::string* busy, std::string* gang) {
    launcher_.AddCuda(0);
    launcher_.AddCuda(1);
    StartScheduler();
    *busy = Submit("cuda:1");
    ASSERT_TRUE(AwaitSent("cuda:1", *busy));
    *gang = SubmitGang({"cuda:0", "cuda:1"});
  }
};

TEST_F(GangSchedulingTest, AGangWaitsForItsBusyDeviceAndGoesBeforeThatDevicesQueue) {
  std::string busy, gang;
  ASSERT_NO_FATAL_FAILURE(GangBehindABusyDevice(&busy, &gang));
  // A stream of one-device jobs behind it on the busy device must not starve it.
  std::vector<std::string> stream;
  for (int i = 0; i < 4; ++i) stream.push_back(Submit("cuda:1"));
  const std::string on_lead = Submit("cuda:0");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Sent("cuda:0", gang)) << "ran while cuda:1 was busy";
  EXPECT_FALSE(Sent("cuda:0", on_lead)) << "the lead starts nothing while its gang waits";
  EXPECT_TRUE(AwaitState(gang, store::JobState::kQueued));

  Finish("cuda:1", busy);
  ASSERT_TRUE(AwaitSent("cuda:0", gang));
  EXPECT_FALSE(Sent("cuda:1", stream[0])) << "cuda:1 is the gang's while it runs";
  int32_t member_depth = -1;
  for (const v1::DeviceInfo& d : scheduler_->Devices()) {
    if (d.id() == "cuda:1") member_depth = d.queue_depth();
  }
  EXPECT_EQ(member_depth, 5) << "shown busy with the gang, four queued";
  Finish("cuda:0", gang);
  ASSERT_TRUE(AwaitSent("cuda:1", stream[0]));
  ASSERT_TRUE(AwaitSent("cuda:0", on_lead));
}

TEST_F(GangSchedulingTest, TwoGangsAndTenSingleJobsAllFinishNeverSharingADevice) {
  for (int i = 0; i < 3; ++i) launcher_.AddCuda(i);
  StartScheduler();
  // Each job's devices; the gangs cross (cuda:1 in both, leads on different devices).
  std::map<std::string, std::vector<std::string>> devices_of;
  for (int i = 0; i < 10; ++i) {
    const std::string device = absl::StrCat("cuda:", i % 3);
    devices_of[Submit(device)] = {device};
    if (i == 2) devices_of[SubmitGang({"cuda:0", "cuda:1"})] = {"cuda:0", "cuda:1"};
    if (i == 5) devices_of[SubmitGang({"cuda:2", "cuda:1"})] = {"cuda:2", "cuda:1"};
  }
  std::set<std::string> finished;
  const auto until = std::chrono::steady_clock::now() + 3 * kEventTimeout;
  while (finished.size() < devices_of.size() && std::chrono::steady_clock::now() < until) {
    // What runs now: sent to an executor (a gang's to its lead's) and not finished by the test.
    std::vector<std::pair<std::string, std::string>> running;  // (lead, job)
    for (int i = 0; i < 3; ++i) {
      const std::string device = absl::StrCat("cuda:", i);
      std::shared_ptr<FakeExecutorState> e = launcher_.AwaitExecutor(device, 0);
      std::lock_guard lock(e->mu);
      for (const std::string& job : e->runs) {
        if (!finished.contains(job)) running.emplace_back(device, job);
      }
    }
    std::multiset<std::string> held;
    for (const auto& [lead, job] : running) {
      EXPECT_EQ(lead, devices_of[job].front()) << job << " ran on another device than its lead";
      held.insert(devices_of[job].begin(), devices_of[job].end());
    }
    for (const std::string& d : held) ASSERT_EQ(held.count(d), 1u) << d << " runs two jobs";
    if (running.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    Finish(running.front().first, running.front().second);
    finished.insert(running.front().second);
  }
  EXPECT_EQ(finished.size(), devices_of.size()) << "a job never ran: deadlock or starvation";
}

TEST_F(GangSchedulingTest, ChargesTheOwnerEveryDeviceOfTheGangForTheRun) {
  launcher_.AddCuda(0);
  launcher_.AddCuda(1);
  StartScheduler();
  const std::string gang = SubmitGang({"cuda:0", "cuda:1"}, "alice");
  ASSERT_TRUE(AwaitSent("cuda:0", gang));
  clock_.AdvanceTo(clock_.Now() + absl::Seconds(10));
  Finish("cuda:0", gang);
  double charged = -1;
  for (const OwnerStanding& s : scheduler_->Usage("alice").owners) {
    if (s.owner == "alice") charged = s.usage.total_gpu_seconds;
  }
  EXPECT_NEAR(charged, 20.0, 1e-6) << "10 s on each of two devices";
}

TEST_F(GangSchedulingTest, ACancelWhileTheGangWaitsEndsItAndFreesTheDevices) {
  std::string busy, gang;
  ASSERT_NO_FATAL_FAILURE(GangBehindABusyDevice(&busy, &gang));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(scheduler_->Cancel(gang, std::chrono::seconds(5)).ok());
  EXPECT_TRUE(AwaitState(gang, store::JobState::kCancelled));
  const std::string after = Submit("cuda:0");
  ASSERT_TRUE(AwaitSent("cuda:0", after)) << "cuda:0 stayed held by the cancelled gang";
}

// A fleet stores a gang node-qualified; the node that claimed it (the claim sets the job's
// device to its own lead) holds and runs it with its own ids.
TEST_F(GangSchedulingTest, AFleetsNodeQualifiedGangRunsWithTheNodesOwnIds) {
  launcher_.AddCuda(0);
  launcher_.AddCuda(1);
  StartScheduler();
  const std::string busy = Submit("cuda:1");
  ASSERT_TRUE(AwaitSent("cuda:1", busy));
  store::JobRecord r = Stored("cuda:0", 1, [](v1::JobSpec* spec) {
    spec->set_device("gpu-a/cuda:0");
    spec->add_devices("gpu-a/cuda:0");
    spec->add_devices("gpu-a/cuda:1");
  });
  scheduler_->Enqueue(r);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(Sent("cuda:0", r.id)) << "its member cuda:1 is busy";
  Finish("cuda:1", busy);
  ASSERT_TRUE(AwaitSent("cuda:0", r.id));
  std::shared_ptr<FakeExecutorState> lead = launcher_.AwaitExecutor("cuda:0", 0);
  std::lock_guard lock(lead->mu);
  ASSERT_EQ(lead->specs.size(), 1u);
  EXPECT_EQ(lead->specs[0].device(), "cuda:0");
  EXPECT_EQ(lead->specs[0].devices(0), "cuda:0");
  EXPECT_EQ(lead->specs[0].devices(1), "cuda:1");
}

TEST_F(GangSchedulingTest, ResolvesNamedAndCountedDevicesAndSaysWhatIsWrong) {
  launcher_.AddCuda(0, "H100");
  launcher_.AddCuda(1, "H100");
  launcher_.AddCuda(2, "A100");
  StartScheduler();
  const auto ids = [](const absl::StatusOr<std::vector<v1::DeviceInfo>>& gang) {
    std::vector<std::string> out;
    if (gang.ok()) {
      for (const v1::DeviceInfo& d : *gang) out.push_back(d.id());
    }
    return out;
  };
  EXPECT_EQ(ids(scheduler_->ResolveGang({"cuda:1", "cuda:0"}, 0)),
            (std::vector<std::string>{"cuda:1", "cuda:0"}));
  EXPECT_EQ(ids(scheduler_->ResolveGang({}, 2)), (std::vector<std::string>{"cuda:0", "cuda:1"}));
  const auto code = [&](const std::vector<std::string>& named, int gpus) {
    return scheduler_->ResolveGang(named, gpus).status().code();
  };
  EXPECT_EQ(code({"cuda:0", "cuda:2"}, 0), absl::StatusCode::kInvalidArgument) << "two models";
  EXPECT_EQ(code({"cuda:0", "cuda:0"}, 0), absl::StatusCode::kInvalidArgument) << "twice";
  EXPECT_EQ(code({"cuda:0", "cpu"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"cuda:0", "cuda:any"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"cuda:0", "cuda:9"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"cuda:0"}, 2), absl::StatusCode::kInvalidArgument) << "both ways";
  EXPECT_EQ(code({}, -2), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({}, 3), absl::StatusCode::kFailedPrecondition) << "3 of no one model";
  EXPECT_EQ(code({}, -1), absl::StatusCode::kFailedPrecondition) << "all, of two models";
  const absl::Status too_many = scheduler_->ResolveGang({}, 3).status();
  EXPECT_NE(too_many.message().find("cuda:0, cuda:1, cuda:2"), std::string::npos) << too_many;
}

TEST_F(GangSchedulingTest, CountedDevicesAreTheLeastQueuedInDeviceOrder) {
  for (int i = 0; i < 3; ++i) launcher_.AddCuda(i, "H100");
  StartScheduler();
  ASSERT_TRUE(AwaitSent("cuda:0", Submit("cuda:0")));
  absl::StatusOr<std::vector<v1::DeviceInfo>> gang = scheduler_->ResolveGang({}, 2);
  ASSERT_TRUE(gang.ok()) << gang.status();
  EXPECT_EQ((*gang)[0].id(), "cuda:1");
  EXPECT_EQ((*gang)[1].id(), "cuda:2");
  absl::StatusOr<std::vector<v1::DeviceInfo>> all = scheduler_->ResolveGang({}, -1);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 3u);
}

}  // namespace
}  // namespace kbench::scheduler
