// The scheduler's test fixture: a real job store in a temporary directory, a simulated clock and
// scripted executors (scheduler_doubles.h), and helpers to store, queue and await jobs.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/scheduler/scheduler.h"
#include "server/store/usage_store.h"
#include "tests/server/scheduler/scheduler_doubles.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::scheduler::testing {

class SchedulerTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    auto opened = store::JobStore::Open(data_dir_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    jobs_ = *std::move(opened);
    artifacts_ = std::make_unique<store::ArtifactStore>(data_dir_, jobs_.get(),
                                                        store::RetentionPolicy{0, 0});
    lifecycle_ = std::make_unique<JobLifecycle>(jobs_.get(), &metrics_, &events_, &clock_);
    options_.hang_slack = absl::Seconds(10);
    options_.cancel_grace = absl::Seconds(5);
  }
  void TearDown() override {
    if (scheduler_) scheduler_->Shutdown();
    scheduler_.reset();
    TempDataDirTest::TearDown();
  }

  void StartScheduler() {
    scheduler_ = std::make_unique<Scheduler>(options_, &launcher_, &clock_, jobs_.get(),
                                             artifacts_.get(), &metrics_, &events_);
    if (usage_store_ != nullptr) scheduler_->UseUsageStore(usage_store_);
    scheduler_->ReportHealthTo([this](const std::string& service, bool serving) {
      std::lock_guard lock(health_mu_);
      health_[service] = serving;
    });
    ASSERT_TRUE(scheduler_->Start().ok());
  }

  // A QUEUED job in the store (as SubmitJob writes it), not yet given to the scheduler.
  store::JobRecord Stored(const std::string& device, double timeout_s = 1,
                          const std::function<void(v1::JobSpec*)>& edit = nullptr) {
    v1::JobSpec spec;
    spec.set_kernel("square");
    spec.set_device(device);
    spec.mutable_stopping()->set_timeout_seconds(timeout_s);
    if (edit) edit(&spec);
    store::JobRecord r;
    r.id = absl::StrCat("job-", ++next_id_);
    r.device = device;
    r.kernel = "square";
    r.owner = spec.owner();  // as the API sets it: the record's typed owner
    spec.SerializeToString(&r.spec);
    auto created = lifecycle_->Create(r);
    EXPECT_TRUE(created.ok()) << created.status();
    return created->first;
  }
  std::string Submit(const std::string& device, double timeout_s = 1) {
    store::JobRecord r = Stored(device, timeout_s);
    scheduler_->Enqueue(r);
    return r.id;
  }

  store::JobRecord Job(const std::string& id) { return *jobs_->Get(id); }
  // Waits (real time, bounded) until the job reaches `state`, through the job's events.
  bool AwaitState(const std::string& id, store::JobState state) {
    const auto until = std::chrono::steady_clock::now() + kEventTimeout;
    uint64_t seen = events_.Version(id);
    while (std::chrono::steady_clock::now() < until) {
      if (Job(id).state == state) return true;
      seen = events_.WaitForChange(
          id, seen,
          std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
    }
    return Job(id).state == state;
  }
  std::optional<bool> Health(const std::string& service) {
    std::lock_guard lock(health_mu_);
    auto it = health_.find(service);
    return it == health_.end() ? std::nullopt : std::optional<bool>(it->second);
  }
  v1::DeviceState State(const std::string& device) {
    for (const v1::DeviceInfo& d : scheduler_->Devices()) {
      if (d.id() == device) return d.state();
    }
    return v1::DEVICE_STATE_UNSPECIFIED;
  }

  SchedulerOptions options_;
  SimulatedClock clock_;
  FakeLauncher launcher_{&clock_};
  RecordingMetrics metrics_;
  JobEvents events_;
  std::unique_ptr<store::JobStore> jobs_;
  std::unique_ptr<store::ArtifactStore> artifacts_;
  std::unique_ptr<JobLifecycle> lifecycle_;
  std::unique_ptr<Scheduler> scheduler_;
  // Where runs' GPU time is recorded and replayed from, when a test gives one.
  store::UsageStore* usage_store_ = nullptr;
  int next_id_ = 0;
  std::mutex health_mu_;
  std::map<std::string, bool> health_;
};

}  // namespace kbench::scheduler::testing
