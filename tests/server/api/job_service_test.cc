// JobService against real stores and a keeping queue (service_fixture.h): what a submit stores
// and refuses, who may cancel and delete, and how a list pages — without gRPC.
#include "server/api/job_service.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

class JobServiceTest : public fixture::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    BuildDomains();
  }

  std::string Submitted(const auth::Identity& caller) {
    v1::SubmitJobResponse response;
    const absl::Status s = job_service_->Submit(caller, SquareOnCpu(), &response);
    EXPECT_TRUE(s.ok()) << s;
    return response.job().id();
  }
};

TEST_F(JobServiceTest, AUsersJobIsTheirsWhateverOwnerTheySend) {
  v1::SubmitJobRequest request = SquareOnCpu();
  request.mutable_spec()->set_owner("bob");
  v1::SubmitJobResponse response;
  ASSERT_TRUE(job_service_->Submit(alice_, request, &response).ok());
  EXPECT_EQ(response.job().spec().owner(), "alice");
  EXPECT_EQ(response.job().state(), v1::JOB_STATE_QUEUED);
  absl::StatusOr<store::JobRecord> stored = jobs_->Get(response.job().id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->owner, "alice");
  EXPECT_EQ(queue_->enqueued, std::vector<std::string>{response.job().id()});
}

TEST_F(JobServiceTest, AnAdminSubmitsOnBehalfAndAUsersPriorityOrConfirmationIsRefused) {
  v1::SubmitJobRequest request = SquareOnCpu();
  request.mutable_spec()->set_owner("bob");
  v1::SubmitJobResponse response;
  ASSERT_TRUE(job_service_->Submit(admin_, request, &response).ok());
  EXPECT_EQ(response.job().spec().owner(), "bob");

  v1::SubmitJobRequest urgent = SquareOnCpu();
  urgent.mutable_spec()->set_priority(5);
  EXPECT_EQ(job_service_->Submit(alice_, urgent, &response).code(),
            absl::StatusCode::kPermissionDenied);
  v1::SubmitJobRequest confirming = SquareOnCpu();
  confirming.mutable_spec()->set_confirms_job("j-0000000000000001");
  const absl::Status refused = job_service_->Submit(admin_, confirming, &response);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("confirms_job"), std::string::npos) << refused;
  EXPECT_EQ(queue_->enqueued.size(), 1u);
}

TEST_F(JobServiceTest, ARetryWithTheSameKeyIsTheSameJobAndADifferentSpecIsRefused) {
  v1::SubmitJobRequest request = SquareOnCpu();
  request.set_idempotency_key("once");
  v1::SubmitJobResponse first;
  ASSERT_TRUE(job_service_->Submit(alice_, request, &first).ok());
  v1::SubmitJobResponse again;
  ASSERT_TRUE(job_service_->Submit(alice_, request, &again).ok());
  EXPECT_TRUE(again.deduplicated());
  EXPECT_EQ(again.job().id(), first.job().id());
  request.mutable_spec()->set_shape(0, 128);
  EXPECT_EQ(job_service_->Submit(alice_, request, &again).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(queue_->enqueued.size(), 1u);
}

TEST_F(JobServiceTest, OnlyTheOwnerOrAnAdminCancelsOrDeletes) {
  const std::string id = Submitted(alice_);
  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::CancelJobResponse cancelled;
  const absl::Status denied = job_service_->Cancel(bob_, cancel, &cancelled);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("alice"), std::string::npos) << denied;
  EXPECT_TRUE(queue_->cancelled.empty());
  ASSERT_TRUE(job_service_->Cancel(admin_, cancel, &cancelled).ok());
  EXPECT_EQ(queue_->cancelled, std::vector<std::string>{id});
  EXPECT_EQ(cancelled.job().id(), id);

  v1::DeleteJobRequest remove;
  remove.set_job_id(id);
  v1::DeleteJobResponse removed;
  EXPECT_EQ(job_service_->Delete(bob_, remove, &removed).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(queue_->deleted.empty());
  ASSERT_TRUE(job_service_->Delete(alice_, remove, &removed).ok());
  EXPECT_EQ(queue_->deleted, std::vector<std::string>{id});
}

TEST_F(JobServiceTest, AListPagesNewestFirstUntilEveryJobWasShownOnce) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Submitted(i % 2 == 0 ? alice_ : bob_));
  std::vector<std::string> seen;
  v1::ListJobsRequest request;
  request.set_page_size(2);
  for (int page = 0; page < 4; ++page) {
    v1::ListJobsResponse response;
    ASSERT_TRUE(job_service_->List(bob_, request, &response).ok());
    for (const v1::Job& job : response.jobs()) seen.push_back(job.id());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  const std::vector<std::string> newest_first(ids.rbegin(), ids.rend());
  EXPECT_EQ(seen, newest_first);
}

TEST_F(JobServiceTest, AnOwnersQuotaRefusesTheJobPastItNamingTheLimit) {
  BuildDomains({.max_queued_jobs = 2});
  Submitted(alice_);
  Submitted(alice_);
  v1::SubmitJobResponse response;
  const absl::Status full = job_service_->Submit(alice_, SquareOnCpu(), &response);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("2"), std::string::npos) << full;
  Submitted(bob_);  // another owner's line is not alice's
  EXPECT_EQ(queue_->enqueued.size(), 3u);
}

}  // namespace
}  // namespace kbench::api
