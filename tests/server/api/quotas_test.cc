// Quotas: the defaults when the auth file lists no limits, the auth file's limits where it
// does, and a refusal that names the limit, the current value and when (or how) it frees up.
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

TEST(Quotas, DefaultsBoundEachOwnersStoredBytesAtTwoGibibytes) {
  EXPECT_EQ(QuotaFor(QuotaDefaults{}, std::nullopt).max_stored_bytes, int64_t{2} << 30);
  auth::Limits unbounded;
  unbounded.max_stored_bytes = 0;
  EXPECT_EQ(QuotaFor(QuotaDefaults{}, unbounded).max_stored_bytes, 0);
}

TEST(Quotas, TheAuthFilesLimitsReplaceOnlyTheDefaultsTheyName) {
  auth::Limits listed;
  listed.max_queued_jobs = 3;
  const OwnerQuota quota = QuotaFor(QuotaDefaults{}, listed);
  EXPECT_EQ(quota.max_queued_jobs, 3);
  EXPECT_EQ(quota.max_timeout_seconds, QuotaDefaults{}.max_timeout_seconds);
  EXPECT_EQ(quota.daily_gpu_seconds, QuotaDefaults{}.daily_gpu_seconds);
  EXPECT_EQ(quota.max_stored_bytes, QuotaDefaults{}.max_stored_bytes);
}

TEST(Quotas, NamesTheTimeoutTheDaemonsQueueAndTheDailyGpuTime) {
  const OwnerQuota quota{10, 60, 3600, 0};
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

OwnerQuota StoredBytesQuota(int64_t max_stored_bytes) {
  OwnerQuota quota;
  quota.max_stored_bytes = max_stored_bytes;
  return quota;
}

store::OwnerStoredBytes Kept(int64_t job_specs, int64_t artifacts = 0, int64_t variants = 0,
                             int64_t sweeps = 0) {
  return store::OwnerStoredBytes{job_specs, artifacts, variants, sweeps};
}

TEST(StoredBytesQuota, CountsSpecsArtifactsVariantsAndSweepsTogether) {
  EXPECT_EQ(Kept(1, 2, 3, 4).total(), 10);
  const OwnerQuota quota = StoredBytesQuota(100);
  EXPECT_TRUE(CheckStoredBytes("bob", quota, Kept(40, 20, 10, 10), 20).ok());
  EXPECT_EQ(CheckStoredBytes("bob", quota, Kept(40, 20, 10, 10), 21).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(StoredBytesQuota, AllowsReachingTheBoundButNotPassingIt) {
  const OwnerQuota quota = StoredBytesQuota(3 << 20);
  EXPECT_TRUE(CheckStoredBytes("bob", quota, Kept(2 << 20), 1 << 20).ok());
  EXPECT_FALSE(CheckStoredBytes("bob", quota, Kept(2 << 20), (1 << 20) + 1).ok());
  EXPECT_FALSE(CheckStoredBytes("bob", quota, Kept(3 << 20), 1).ok());
  // A single thing larger than the bound never fits, even for an owner who keeps nothing.
  EXPECT_FALSE(CheckStoredBytes("bob", quota, Kept(0), (3 << 20) + 1).ok());
}

TEST(StoredBytesQuota, ZeroMeansNoBound) {
  EXPECT_TRUE(CheckStoredBytes("bob", StoredBytesQuota(0), Kept(int64_t{1} << 50), 1 << 30).ok());
}

TEST(StoredBytesQuota, RefusalNamesTheLimitWhatTheOwnerKeepsAndHowToFreeIt) {
  const absl::Status refused =
      CheckStoredBytes("bob", StoredBytesQuota(4 << 20), Kept(3 << 20, 1 << 19, 1 << 18), 1 << 20);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  const std::string message(refused.message());
  EXPECT_THAT(message, HasSubstr("limit max_stored_bytes of 'bob' is 4194304 bytes (4.0 MiB)"));
  EXPECT_THAT(message, HasSubstr("'bob' keeps 3932160 bytes (3.8 MiB: job specs 3.0 MiB, "
                                 "their artifacts 512.0 KiB, registered variants 256.0 KiB, "
                                 "sweeps 0.0 KiB, kernels' code kept once 0.0 KiB)"));
  EXPECT_THAT(message, HasSubstr("needs 1048576 bytes (1.0 MiB) more"));
  EXPECT_THAT(message, HasSubstr("kbctl jobs rm"));
  EXPECT_THAT(message, HasSubstr("kbctl variants rm"));
  EXPECT_THAT(message, HasSubstr("kbctl sweep rm"));
}

}  // namespace
}  // namespace kbench::api
