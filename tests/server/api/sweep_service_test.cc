// SweepService against real stores and a keeping queue (service_fixture.h): a sweep queues one
// job per point through the job service, is seen whole, and is cancelled by its owner only.
#include "server/api/sweep_service.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

class SweepServiceTest : public fixture::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    BuildDomains();
    service_ = Built(sweeps_.get());
  }

  std::unique_ptr<SweepService> Built(store::SweepStore* sweeps) {
    return std::make_unique<SweepService>(SweepService::Parts{.sweeps = sweeps,
                                                              .data_dir = data_dir_,
                                                              .artifacts = artifacts_.get(),
                                                              .job_store = jobs_.get(),
                                                              .queue = queue_.get(),
                                                              .jobs = job_service_.get(),
                                                              .usage = usage_service_.get(),
                                                              .variants = variant_service_.get(),
                                                              .authorizer = authorizer_.get(),
                                                              .clock = &clock_},
                                          SweepService::Bounds{.limits = {}, .max_points = 8});
  }

  // square over dim0 = 16, 32, 64 on the cpu device.
  static v1::SubmitSweepRequest ThreePoints() {
    v1::SubmitSweepRequest request;
    *request.mutable_spec()->mutable_base() = SquareOnCpu().spec();
    request.mutable_spec()->mutable_base()->clear_shape();
    request.mutable_spec()->mutable_base()->add_shape(16);
    v1::SweepAxis* axis = request.mutable_spec()->add_axes();
    axis->set_name("dim0");
    axis->set_values("16,32,64");
    return request;
  }

  std::unique_ptr<SweepService> service_;
};

TEST_F(SweepServiceTest, QueuesOneJobPerPointForItsCallerAtItsClocksTime) {
  v1::SubmitSweepResponse response;
  const absl::Status s = service_->Submit(alice_, ThreePoints(), &response);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(response.sweep().owner(), "alice");
  EXPECT_EQ(response.sweep().points_total(), 3);
  EXPECT_EQ(response.sweep().create_time().seconds(), 1'700'000'000);
  EXPECT_EQ(queue_->enqueued.size(), 3u);
  for (const std::string& id : queue_->enqueued) {
    absl::StatusOr<store::JobRecord> job = jobs_->Get(id);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->owner, "alice");
  }

  v1::GetSweepRequest get;
  get.set_sweep_id(response.sweep().id());
  get.set_with_jobs(true);
  v1::GetSweepResponse got;
  ASSERT_TRUE(service_->Get(bob_, get, &got).ok());
  ASSERT_EQ(got.sweep().points_size(), 3);
  EXPECT_EQ(got.jobs_size(), 3);
  EXPECT_EQ(got.sweep().points(2).job_id(), queue_->enqueued[2]);
  EXPECT_TRUE(service_->Owns(response.sweep().id()));
}

TEST_F(SweepServiceTest, AWrongPointRefusesTheWholeSweepNamingThePoint) {
  v1::SubmitSweepRequest request = ThreePoints();
  request.mutable_spec()->mutable_axes(0)->set_values("16,-1");
  v1::SubmitSweepResponse response;
  const absl::Status refused = service_->Submit(alice_, request, &response);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(queue_->enqueued.empty());
}

TEST_F(SweepServiceTest, OnlyItsOwnerOrAnAdminCancelsItLastPointFirst) {
  v1::SubmitSweepResponse submitted;
  ASSERT_TRUE(service_->Submit(alice_, ThreePoints(), &submitted).ok());
  v1::CancelSweepRequest cancel;
  cancel.set_sweep_id(submitted.sweep().id());
  v1::CancelSweepResponse response;
  EXPECT_EQ(service_->Cancel(bob_, cancel, &response).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(queue_->cancelled.empty());
  ASSERT_TRUE(service_->Cancel(alice_, cancel, &response).ok());
  EXPECT_EQ(response.points_cancelled(), 3);
  const std::vector<std::string> last_first(queue_->enqueued.rbegin(), queue_->enqueued.rend());
  EXPECT_EQ(queue_->cancelled, last_first);
}

TEST_F(SweepServiceTest, WithoutAStoreEveryCallIsUnimplementedAndNoIdIsASweeps) {
  service_ = Built(nullptr);
  v1::SubmitSweepResponse submitted;
  EXPECT_EQ(service_->Submit(alice_, ThreePoints(), &submitted).code(),
            absl::StatusCode::kUnimplemented);
  v1::ListSweepsResponse listed;
  EXPECT_EQ(service_->List(alice_, v1::ListSweepsRequest(), &listed).code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(service_->Owns("s-0000000000000001"));
  EXPECT_TRUE(queue_->enqueued.empty());
}

}  // namespace
}  // namespace kbench::api
