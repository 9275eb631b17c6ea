// KbenchService, the gRPC front, called directly without a server (service_fixture.h): each
// handler reaches its domain service with the identity the call authentication interceptor
// recorded, and only then; the request's field sizes are checked before the domain sees it. The
// gRPC plumbing around it (interceptors, limits, streams) is the integration tests'.
#include "server/api/kbench_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/catalogue.h"
#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

class KbenchServiceTest : public fixture::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    parts_.jobs = jobs_.get();
    parts_.artifacts = artifacts_.get();
    parts_.stored = stored_.get();
    parts_.scheduler = queue_.get();
    parts_.events = &events_;
    parts_.authorizer = authorizer_.get();
    parts_.callers = &callers_;
    // What the call authentication interceptor does when a call's headers arrive.
    callers_.Remember(&context_, authorizer_->Authenticate(context_, "test"));
    service_ = std::make_unique<KbenchService>(parts_, ApiOptions());
  }
  void TearDown() override {
    service_.reset();
    ServiceTest::TearDown();
  }

  CallIdentities callers_;
  KbenchService::Parts parts_;
  std::unique_ptr<KbenchService> service_;
  grpc::ServerContext context_;
};

TEST_F(KbenchServiceTest, ListsTheCatalogueAndTheQueuesDevices) {
  const v1::ListKernelsRequest list_kernels;
  const v1::ListDevicesRequest list_devices;
  v1::ListKernelsResponse kernels;
  ASSERT_TRUE(service_->ListKernels(&context_, &list_kernels, &kernels).ok());
  EXPECT_EQ(static_cast<size_t>(kernels.kernels_size()), kernels::Catalogue().size());
  v1::ListDevicesResponse devices;
  ASSERT_TRUE(service_->ListDevices(&context_, &list_devices, &devices).ok());
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
  parts_.variants = variants_.get();
  parts_.max_variants_per_owner = 1;
  parts_.clock = &clock_;
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

TEST_F(KbenchServiceTest, ACallThatDidNotAuthenticateReachesNoService) {
  grpc::ServerContext stranger;
  callers_.Remember(&stranger, absl::UnauthenticatedError("no token"));
  const v1::SubmitJobRequest request = SquareOnCpu();
  v1::SubmitJobResponse response;
  const grpc::Status s = service_->SubmitJob(&stranger, &request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(s.error_message(), "no token");
  EXPECT_TRUE(queue_->enqueued.empty());
}

TEST_F(KbenchServiceTest, ACallTheInterceptorNeverSawIsRefusedNotAnonymous) {
  grpc::ServerContext unseen;
  const v1::SubmitJobRequest request = SquareOnCpu();
  v1::SubmitJobResponse response;
  EXPECT_EQ(service_->SubmitJob(&unseen, &request, &response).error_code(),
            grpc::StatusCode::INTERNAL);
  EXPECT_TRUE(queue_->enqueued.empty());
}

TEST_F(KbenchServiceTest, FieldSizesAreCheckedOnceBeforeTheDomainSeesTheRequest) {
  v1::SubmitJobRequest request = SquareOnCpu();
  request.set_idempotency_key(std::string(4096, 'k'));
  v1::SubmitJobResponse response;
  const grpc::Status s = service_->SubmitJob(&context_, &request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("idempotency_key"), std::string::npos) << s.error_message();
  EXPECT_TRUE(queue_->enqueued.empty());
}

}  // namespace
}  // namespace kbench::api
