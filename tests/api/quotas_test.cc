// Quotas: the defaults when the auth file lists no limits, the auth file's limits where it
// does, and a refusal that names the limit, the current value and when it frees up.
#include "server/api/quotas.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kbench::api {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1700000000);  // 2023-11-14 22:13:20 UTC

QuotaUse Use(int64_t owner_unfinished, int64_t all_unfinished = 0, double today = 0) {
  return QuotaUse{owner_unfinished, all_unfinished, today, kNow};
}

TEST(Quotas, DefaultsAllowOneHundredQueuedJobsPerOwner) {
  const QuotaDefaults defaults;
  const OwnerQuota quota = QuotaFor(defaults, std::nullopt);
  EXPECT_EQ(quota.max_queued_jobs, 100);
  EXPECT_TRUE(CheckQuota("local", quota, defaults.max_queued_jobs_total, 15, Use(99)).ok());
  const absl::Status refused =
      CheckQuota("local", quota, defaults.max_queued_jobs_total, 15, Use(100));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.message()), HasSubstr("limit max_queued_jobs of 'local' is 100"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("has 100 jobs queued or running"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("frees up"));
}

TEST(Quotas, TheAuthFilesLimitsReplaceOnlyTheDefaultsTheyName) {
  auth::Limits listed;
  listed.max_queued_jobs = 3;
  const OwnerQuota quota = QuotaFor(QuotaDefaults{}, listed);
  EXPECT_EQ(quota.max_queued_jobs, 3);
  EXPECT_EQ(quota.max_timeout_seconds, QuotaDefaults{}.max_timeout_seconds);
  EXPECT_EQ(quota.daily_gpu_seconds, QuotaDefaults{}.daily_gpu_seconds);
}

TEST(Quotas, NamesTheTimeoutTheDaemonsQueueAndTheDailyGpuTime) {
  const OwnerQuota quota{10, 60, 3600};
  EXPECT_THAT(std::string(CheckQuota("bob", quota, 1000, 61, Use(0)).message()),
              HasSubstr("max_timeout_seconds of 'bob' is 60"));
  const absl::Status full = CheckQuota("bob", quota, 1000, 10, Use(0, 1000));
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(full.message()), HasSubstr("--max-queued-jobs of this kbenchd is 1000"));
  const absl::Status spent = CheckQuota("bob", quota, 1000, 10, Use(0, 0, 3600.5));
  EXPECT_EQ(spent.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(spent.message()), HasSubstr("daily_gpu_seconds of 'bob' is 3600"));
  EXPECT_THAT(std::string(spent.message()), HasSubstr("used 3600.5 GPU seconds today"));
  EXPECT_THAT(std::string(spent.message()), HasSubstr("frees up at 2023-11-15 00:00:00 UTC"));
  EXPECT_TRUE(CheckQuota("bob", quota, 1000, 10, Use(9, 999, 3599)).ok());
}

}  // namespace
}  // namespace kbench::api
