// What the API's domain services are tested against (issue 27: each built complete from its
// parts): real SQLite stores in a temporary directory, a queue that keeps what it is given on
// one cpu device, an open authenticator, and a clock that stands still. Callers are identities
// made here: the services never see gRPC.
#pragma once

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "server/api/job_service.h"
#include "server/api/usage_service.h"
#include "server/api/variant_service.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/call_gate.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/stored_bytes.h"
#include "server/store/sweep_store.h"
#include "server/store/variant_store.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::api::fixture {

// One cpu device; what is submitted is stored as the real queue stores it (through the job
// store) and kept in the order it came; each owner's queued jobs are their usage.
class KeepingQueue : public scheduler::JobQueue {
 public:
  explicit KeepingQueue(store::JobStore* jobs) : jobs_(jobs) {}

  std::vector<v1::DeviceInfo> Devices() override {
    v1::DeviceInfo cpu;
    cpu.set_id("cpu");
    cpu.set_kind(v1::DEVICE_KIND_CPU);
    cpu.set_name("a test host");
    cpu.set_state(v1::DEVICE_STATE_READY);
    return {cpu};
  }
  absl::StatusOr<v1::DeviceInfo> ResolveDevice(const std::string& requested) override {
    if (requested == "cpu" || requested.empty()) return Devices()[0];
    return absl::InvalidArgumentError("spec.device: no device '" + requested + "' here");
  }
  absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) override {
    auto stored = jobs_->Insert(record);
    if (stored.ok() && stored->second) {
      enqueued.push_back(stored->first.id);
      ++queued_by_owner[stored->first.owner];
    }
    return stored;
  }
  absl::StatusOr<int32_t> DeleteFinished(const std::string& id) override {
    deleted.push_back(id);
    return 0;
  }
  absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(const std::string&) override {
    return store::ArtifactStore::DeletedSweep{};
  }
  void Enqueue(const store::JobRecord& record) override { enqueued.push_back(record.id); }
  absl::Status Cancel(const std::string& id, std::chrono::milliseconds) override {
    cancelled.push_back(id);
    return absl::OkStatus();
  }
  std::map<std::string, scheduler::QueuePlaceEstimate> QueuePlaces() override { return {}; }
  scheduler::UsageSnapshot Usage(const std::string&) override {
    scheduler::UsageSnapshot usage;
    for (const auto& [owner, queued] : queued_by_owner) {
      scheduler::OwnerStanding standing;
      standing.owner = owner;
      standing.queued = queued;
      usage.owners.push_back(standing);
      usage.unfinished_jobs += queued;
    }
    usage.now = absl::FromUnixSeconds(1'700'000'000);
    return usage;
  }
  absl::Duration FairShareHalfLife() const override { return absl::Hours(1); }
  std::vector<v1::NodeInfo> Nodes() override { return {}; }

  std::vector<std::string> enqueued;
  std::vector<std::string> cancelled;
  std::vector<std::string> deleted;
  std::map<std::string, int32_t> queued_by_owner;

 private:
  store::JobStore* jobs_;
};

// Time stands still at `now`: what a service stamps must come from its clock, not the host's.
class StillClock : public scheduler::Clock {
 public:
  absl::Time Now() override { return now; }
  bool WaitUntil(std::condition_variable&, std::unique_lock<std::mutex>&, absl::Time,
                 const std::function<bool()>& done) override {
    return done();
  }
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
};

// The stores, the queue and the authorizer every domain service is built from.
class ServiceTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    store::StoreLocation location;
    location.data_dir = data_dir_;
    jobs_ = Opened(store::JobStore::Open(location));
    stored_ = Opened(store::StoredBytes::Open(location));
    sweeps_ = Opened(store::SweepStore::Open(location));
    variants_ = Opened(store::VariantStore::Open(location));
    artifacts_ = std::make_unique<store::ArtifactStore>(data_dir_, jobs_.get(),
                                                        store::RetentionPolicy{0, 0});
    queue_ = std::make_unique<KeepingQueue>(jobs_.get());
    auth::AuthOptions open;
    open.open = true;
    authenticator_ = Opened(auth::Authenticator::Create(open));
    authorizer_ = std::make_unique<auth::Authorizer>(authenticator_.get(), jobs_.get(), &gate_);
  }

  // The usage, variant and job services over the stores, `quotas` in force.
  void BuildDomains(const QuotaDefaults& quotas = {}) {
    usage_service_ =
        std::make_unique<UsageService>(queue_.get(), stored_.get(), authorizer_.get(), quotas);
    variant_service_ =
        std::make_unique<VariantService>(variants_.get(), usage_service_.get(), &clock_, 10);
    job_service_ = std::make_unique<JobService>(
        JobService::Parts{.jobs = jobs_.get(),
                          .artifacts = artifacts_.get(),
                          .queue = queue_.get(),
                          .events = &events_,
                          .authorizer = authorizer_.get(),
                          .usage = usage_service_.get(),
                          .variants = variant_service_.get()},
        JobService::Bounds{
            .limits = {}, .max_list_response_bytes = 1 << 20, .max_reply_bytes = 4 << 20});
  }

  template <class T>
  static std::unique_ptr<T> Opened(absl::StatusOr<std::unique_ptr<T>> opened) {
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? *std::move(opened) : nullptr;
  }

  // square on the cpu device, as kbctl bench would send it.
  static v1::SubmitJobRequest SquareOnCpu() {
    v1::SubmitJobRequest request;
    v1::JobSpec* spec = request.mutable_spec();
    spec->set_kind(v1::JOB_KIND_BENCHMARK);
    spec->set_kernel("square");
    spec->add_variants("host_loop");
    spec->add_shape(64);
    spec->add_shape(64);
    spec->set_dtype(v1::DTYPE_F32);
    spec->set_device("cpu");
    return request;
  }

  const auth::Identity alice_{"alice", auth::Role::kUser, auth::Identity::Method::kToken};
  const auth::Identity bob_{"bob", auth::Role::kUser, auth::Identity::Method::kToken};
  const auth::Identity admin_{"root", auth::Role::kAdmin, auth::Identity::Method::kToken};
  std::unique_ptr<auth::Authenticator> authenticator_;
  auth::CallGate gate_;
  scheduler::JobEvents events_;
  StillClock clock_;
  std::unique_ptr<store::JobStore> jobs_;
  std::unique_ptr<store::StoredBytes> stored_;
  std::unique_ptr<store::SweepStore> sweeps_;
  std::unique_ptr<store::VariantStore> variants_;
  std::unique_ptr<store::ArtifactStore> artifacts_;
  std::unique_ptr<KeepingQueue> queue_;
  std::unique_ptr<auth::Authorizer> authorizer_;
  // BuildDomains'.
  std::unique_ptr<UsageService> usage_service_;
  std::unique_ptr<VariantService> variant_service_;
  std::unique_ptr<JobService> job_service_;
};

}  // namespace kbench::api::fixture
