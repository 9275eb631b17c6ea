// Per-method receive limits (server/api/message_limits.h).
#include "server/api/message_limits.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::api {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

TEST(ReceiveLimits, OnlyUploadMethodsTakeLargeRequests) {
  EXPECT_EQ(ReceiveLimitOf("SubmitJob"), 0u);
  EXPECT_EQ(ReceiveLimitOf("AddVariant"), 0u);
  EXPECT_EQ(ReceiveLimitOf("SubmitSweep"), 0u);
  EXPECT_EQ(ReceiveLimitOf("GetJob"), kSmallRequestBytes);
  EXPECT_EQ(ReceiveLimitOf("ListJobs"), kSmallRequestBytes);
}

TEST(ReceiveLimits, RefusalNamesTheMethodTheSizeAndTheLimit) {
  EXPECT_TRUE(CheckReceiveLimit("GetJob", kSmallRequestBytes).ok());
  EXPECT_TRUE(CheckReceiveLimit("SubmitJob", size_t{35} << 20).ok());
  const grpc::Status s = CheckReceiveLimit("GetJob", kSmallRequestBytes + 1);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("GetJob request is 65537 bytes"));
  EXPECT_THAT(s.error_message(), HasSubstr("limit of 65536 bytes"));
}

TEST(ReceiveLimits, EveryUnaryMethodIsServedWithinItsLimit) {
  // Both directions: the mixin's list is the service's unary methods, no more, no fewer.
  WithReceiveLimits<v1::KbenchService::Service> service;
  std::vector<std::string> limited(service.listed_methods().begin(),
                                   service.listed_methods().end());
  EXPECT_THAT(limited, UnorderedElementsAreArray(UnaryMethods()));
}

}  // namespace
}  // namespace kbench::api
