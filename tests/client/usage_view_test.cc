// kbctl's words for fair share: ordinals, a queued job's place and wait, the usage table.
#include "client/format/usage_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/format/progress.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

TEST(UsageView, WritesOrdinalsTheEnglishWay) {
  EXPECT_EQ(Ordinal(1), "1st");
  EXPECT_EQ(Ordinal(2), "2nd");
  EXPECT_EQ(Ordinal(3), "3rd");
  EXPECT_EQ(Ordinal(4), "4th");
  EXPECT_EQ(Ordinal(11), "11th");
  EXPECT_EQ(Ordinal(12), "12th");
  EXPECT_EQ(Ordinal(13), "13th");
  EXPECT_EQ(Ordinal(21), "21st");
  EXPECT_EQ(Ordinal(112), "112th");
}

TEST(UsageView, DescribesAQueuedJobsPlaceInTheProgressLine) {
  v1::Job job;
  job.set_id("j-1");
  job.set_state(v1::JOB_STATE_QUEUED);
  v1::QueuePlace* place = job.mutable_queue_place();
  place->set_device("cuda:0");
  place->set_position(3);
  place->set_jobs_ahead(2);
  place->set_device_busy(true);
  place->set_estimated_wait_seconds(40.4);
  EXPECT_EQ(DescribeProgress(job), "job j-1 queued: 3rd in line on cuda:0, about 40 s");
  place->set_position(1);
  place->set_jobs_ahead(0);
  place->set_estimated_wait_seconds(600);
  EXPECT_EQ(DescribeQueuePlace(*place), "next in line on cuda:0, about 10 min");
  place->set_device_busy(false);
  EXPECT_EQ(DescribeQueuePlace(*place), "next in line on cuda:0");
}

TEST(UsageView, ListsOwnersWithTheirUsageAndLimits) {
  v1::GetUsageResponse usage;
  v1::OwnerUsage* bob = usage.add_owners();
  bob->set_owner("bob");
  bob->set_decayed_gpu_seconds(12.25);
  bob->set_share(0.25);
  bob->set_queued_jobs(4);
  bob->mutable_limits()->set_max_queued_jobs(100);
  usage.set_fair_share_half_life_seconds(3600);
  usage.set_queued_jobs(4);
  usage.set_max_queued_jobs(10000);
  const std::string table = RenderUsage(usage);
  EXPECT_THAT(table, HasSubstr("OWNER"));
  EXPECT_THAT(table, HasSubstr("bob"));
  EXPECT_THAT(table, HasSubstr("12.2"));
  EXPECT_THAT(table, HasSubstr("25"));
  EXPECT_THAT(table, HasSubstr("half-life 60 min"));
  EXPECT_THAT(table, HasSubstr("4 of at most 10000 jobs"));
}

}  // namespace
}  // namespace kbench::client
