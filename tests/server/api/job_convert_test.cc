// Store records to API messages: a job's status code travels as the StatusCode enum and, for
// older clients, as its name.
#include "server/api/job_convert.h"

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace kbench::api {
namespace {

store::JobRecord Finished(store::JobState state, absl::StatusCode code) {
  store::JobRecord record;
  record.id = "j-1";
  record.state = state;
  record.code = code;
  return record;
}

TEST(RecordToJob, AFailedJobCarriesItsCodeAsTheEnumAndAsItsName) {
  const v1::Job job = RecordToJob(
      Finished(store::JobState::kFailed, absl::StatusCode::kResourceExhausted), std::nullopt, {});
  EXPECT_EQ(job.state(), v1::JOB_STATE_FAILED);
  EXPECT_EQ(job.error_status(), v1::STATUS_CODE_RESOURCE_EXHAUSTED);
  EXPECT_EQ(job.error_code(), "RESOURCE_EXHAUSTED");
}

TEST(RecordToJob, ASucceededJobCarriesOkAndNoName) {
  const v1::Job job =
      RecordToJob(Finished(store::JobState::kSucceeded, absl::StatusCode::kOk), std::nullopt, {});
  EXPECT_EQ(job.error_status(), v1::STATUS_CODE_OK);
  EXPECT_EQ(job.error_code(), "");
}

// RecordToJob casts absl::StatusCode to v1::StatusCode, and kbctl casts back: every code has the
// same number and name in both.
TEST(StatusCodeEnum, NumbersEveryCodeAsAbslDoes) {
  EXPECT_EQ(v1::StatusCode_descriptor()->value_count(), 17);
  for (int c = 0; c <= 16; ++c) {
    EXPECT_EQ(
        v1::StatusCode_Name(static_cast<v1::StatusCode>(c)),
        absl::StrCat("STATUS_CODE_", absl::StatusCodeToString(static_cast<absl::StatusCode>(c))))
        << c;
  }
}

}  // namespace
}  // namespace kbench::api
