// KbenchService's handlers called directly, without a server (issue 27: the service is built
// complete from its parts, so it can be tested against them): a real SQLite store in a temporary
// directory, a queue that keeps what it is given, an open authenticator. What a handler writes,
// refuses and leaves alone is checked at the service's boundary; the gRPC plumbing around it
// (interceptors, limits, streams) is the integration tests'.
#include "server/api/kbench_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/catalogue.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/call_gate.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/stored_bytes.h"
#include "server/store/variant_store.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::api {
namespace {

// One cpu device; what is submitted is stored as the real queue stores it (through the job
// store), and kept in the order it came.
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
    if (requested == "cpu") return Devices()[0];
    return absl::InvalidArgumentError("spec.device: no device '" + requested + "' here");
  }
  absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) override {
    auto stored = jobs_->Insert(record);
    if (stored.ok() && stored->second) enqueued.push_back(stored->first.id);
    return stored;
  }
  absl::StatusOr<int32_t> DeleteFinished(const std::string&) override { return 0; }
  absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(const std::string&) override {
    return store::ArtifactStore::DeletedSweep{};
  }
  void Enqueue(const store::JobRecord& record) override { enqueued.push_back(record.id); }
  absl::Status Cancel(const std::string&, std::chrono::milliseconds) override {
    return absl::OkStatus();
  }
  std::map<std::string, scheduler::QueuePlaceEstimate> QueuePlaces() override { return {}; }
  scheduler::UsageSnapshot Usage(const std::string&) override { return {}; }
  absl::Duration FairShareHalfLife() const override { return absl::Hours(1); }
  std::vector<v1::NodeInfo> Nodes() override { return {}; }

  std::vector<std::string> enqueued;

 private:
  store::JobStore* jobs_;
};

// Time stands still at `now`: what the service stamps must come from its clock, not the host's.
class StillClock : public scheduler::Clock {
 public:
  absl::Time Now() override { return now; }
  bool WaitUntil(std::condition_variable&, std::unique_lock<std::mutex>&, absl::Time,
                 const std::function<bool()>& done) override {
    return done();
  }
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
};

class KbenchServiceTest : public store::testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    store::StoreLocation location;
    location.data_dir = data_dir_;
    auto jobs = store::JobStore::Open(location);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    auto stored = store::StoredBytes::Open(location);
    ASSERT_TRUE(stored.ok()) << stored.status();
    stored_ = *std::move(stored);
    artifacts_ = std::make_unique<store::ArtifactStore>(data_dir_, jobs_.get(),
                                                        store::RetentionPolicy{0, 0});
    queue_ = std::make_unique<KeepingQueue>(jobs_.get());
    auth::AuthOptions open;
    open.open = true;
    auto authenticator = auth::Authenticator::Create(open);
    ASSERT_TRUE(authenticator.ok()) << authenticator.status();
    authenticator_ = *std::move(authenticator);
    authorizer_ = std::make_unique<auth::Authorizer>(authenticator_.get(), jobs_.get(), &gate_);
    parts_.jobs = jobs_.get();
    parts_.artifacts = artifacts_.get();
    parts_.stored = stored_.get();
    parts_.scheduler = queue_.get();
    parts_.events = &events_;
    parts_.authorizer = authorizer_.get();
    service_ = std::make_unique<KbenchService>(parts_, ApiOptions());
  }
  void TearDown() override {
    service_.reset();
    TempDataDirTest::TearDown();
  }

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

  std::unique_ptr<auth::Authenticator> authenticator_;
  auth::CallGate gate_;
  scheduler::JobEvents events_;
  std::unique_ptr<store::JobStore> jobs_;
  std::unique_ptr<store::StoredBytes> stored_;
  std::unique_ptr<store::ArtifactStore> artifacts_;
  std::unique_ptr<KeepingQueue> queue_;
  std::unique_ptr<auth::Authorizer> authorizer_;
  KbenchService::Parts parts_;
  std::unique_ptr<KbenchService> service_;
  grpc::ServerContext context_;
};

TEST_F(KbenchServiceTest, ListsTheCatalogueAndTheQueuesDevices) {
  v1::ListKernelsResponse kernels;
  ASSERT_TRUE(service_->ListKernels(&context_, nullptr, &kernels).ok());
  EXPECT_EQ(static_cast<size_t>(kernels.kernels_size()), kernels::Catalogue().size());
  v1::ListDevicesResponse devices;
  ASSERT_TRUE(service_->ListDevices(&context_, nullptr, &devices).ok());
  ASSERT_EQ(devices.devices_size(), 1);
  EXPECT_EQ(devices.devices(0).id(), "cpu");
}

TEST_F(KbenchServiceTest, SubmitStoresTheJobQueuedForItsCallerAndHandsItToTheQueue) {
  const v1::SubmitJobRequest request = SquareOnCpu();
  v1::SubmitJobResponse response;
  const grpc::Status s = service_->SubmitJob(&context_, &request, &response);
  ASSERT_TRUE(s.ok()) << s.error_message();
  const std::string id = response.job().id();
  EXPECT_EQ(response.job().state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(response.job().spec().owner(), "local");  // the open caller, whatever was sent
  EXPECT_EQ(queue_->enqueued, std::vector<std::string>{id});
  absl::StatusOr<store::JobRecord> stored = jobs_->Get(id);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->state, store::JobState::kQueued);
  EXPECT_EQ(stored->owner, "local");

  v1::GetJobRequest get;
  get.set_job_id(id);
  v1::GetJobResponse got;
  ASSERT_TRUE(service_->GetJob(&context_, &get, &got).ok());
  EXPECT_EQ(got.job().id(), id);
}

TEST_F(KbenchServiceTest, RefusesWhatCannotRunNamingItAndQueuesNothing) {
  v1::SubmitJobRequest unknown = SquareOnCpu();
  unknown.mutable_spec()->set_kernel("no_such_kernel");
  v1::SubmitJobResponse response;
  grpc::Status s = service_->SubmitJob(&context_, &unknown, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("no_such_kernel"), std::string::npos) << s.error_message();

  v1::SubmitJobRequest elsewhere = SquareOnCpu();
  elsewhere.mutable_spec()->set_device("cuda:7");
  s = service_->SubmitJob(&context_, &elsewhere, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("cuda:7"), std::string::npos) << s.error_message();
  EXPECT_TRUE(queue_->enqueued.empty());

  v1::GetJobRequest get;
  get.set_job_id("j-nothere");
  v1::GetJobResponse got;
  EXPECT_EQ(service_->GetJob(&context_, &get, &got).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(KbenchServiceTest, WithoutSweepOrVariantStoresThoseCallsAreUnimplemented) {
  v1::SubmitSweepRequest sweep;
  v1::SubmitSweepResponse swept;
  EXPECT_EQ(service_->SubmitSweep(&context_, &sweep, &swept).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  v1::ListVariantsRequest list;
  v1::ListVariantsResponse listed;
  EXPECT_EQ(service_->ListVariants(&context_, &list, &listed).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(KbenchServiceTest, RegistersAVariantAtItsClocksTimeForItsCallerWithinTheBound) {
  store::StoreLocation location;
  location.data_dir = data_dir_;
  auto variants = store::VariantStore::Open(location);
  ASSERT_TRUE(variants.ok()) << variants.status();
  StillClock clock;
  parts_.variants = variants->get();
  parts_.max_variants_per_owner = 1;
  parts_.clock = &clock;
  service_ = std::make_unique<KbenchService>(parts_, ApiOptions());

  v1::AddVariantRequest add;
  add.set_operation("square");
  v1::UserKernel* k = add.mutable_kernel();
  k->set_name("@mine");
  k->set_form(v1::USER_KERNEL_FORM_CUDA);
  k->set_code("extern \"C\" __global__ void sq(const float* x, float* y, long long n) {}");
  k->set_entry("sq");
  k->mutable_launch()->add_grid("cdiv(n, 256)");
  k->mutable_launch()->add_block("256");
  v1::AddVariantResponse added;
  grpc::Status s = service_->AddVariant(&context_, &add, &added);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(added.variant().owner(), "local");
  EXPECT_EQ(added.variant().create_time().seconds(), 1'700'000'000);

  k->set_name("@another");  // one per owner here
  s = service_->AddVariant(&context_, &add, &added);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("--max-variants-per-owner"), std::string::npos)
      << s.error_message();
}

}  // namespace
}  // namespace kbench::api
