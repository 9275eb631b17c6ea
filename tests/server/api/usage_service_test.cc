// UsageService against a keeping queue and real stores (service_fixture.h): GetUsage shows each
// owner's standing and limits; the stored-bytes bound refuses what would pass it.
#include "server/api/usage_service.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

class UsageServiceTest : public fixture::ServiceTest {
 protected:
  QuotaDefaults quotas_{
      .max_queued_jobs = 7, .max_stored_bytes = 1000, .max_queued_jobs_total = 50};
};

TEST_F(UsageServiceTest, ShowsEachOwnersJobsAndLimitsAndTheDaemonsQueue) {
  UsageService usage(queue_.get(), stored_.get(), authorizer_.get(), quotas_);
  queue_->queued_by_owner = {{"alice", 2}, {"bob", 1}};
  v1::GetUsageResponse response;
  ASSERT_TRUE(usage.Get(alice_, v1::GetUsageRequest(), &response).ok());
  ASSERT_EQ(response.owners_size(), 2);
  EXPECT_EQ(response.queued_jobs(), 3);
  EXPECT_EQ(response.max_queued_jobs(), 50);
  EXPECT_EQ(response.fair_share_half_life_seconds(), 3600);
  for (const v1::OwnerUsage& o : response.owners()) {
    EXPECT_EQ(o.queued_jobs(), o.owner() == "alice" ? 2 : 1) << o.owner();
    EXPECT_EQ(o.limits().max_queued_jobs(), 7) << o.owner();
  }
  v1::GetUsageRequest one;
  one.set_owner("bob");
  response.Clear();
  ASSERT_TRUE(usage.Get(alice_, one, &response).ok());
  ASSERT_EQ(response.owners_size(), 1);
  EXPECT_EQ(response.owners(0).owner(), "bob");
  one.set_owner("not a name");
  EXPECT_EQ(usage.Get(alice_, one, &response).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(UsageServiceTest, RefusesBytesPastTheOwnersBoundNamingIt) {
  UsageService usage(queue_.get(), stored_.get(), authorizer_.get(), quotas_);
  EXPECT_TRUE(usage.CheckStoredBytesQuota(alice_, "SubmitJob", "alice", 999).ok());
  const absl::Status over = usage.CheckStoredBytesQuota(alice_, "SubmitJob", "alice", 1001);
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(over.message().find("alice"), std::string::npos) << over;
}

}  // namespace
}  // namespace kbench::api
