// Per-method receive limits (server/api/message_limits.h).
#include "server/api/message_limits.h"

#include <algorithm>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/api/stream_requests.h"

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

// A serialized GetJobRequest of `bytes` bytes, nearly all of them its job_id.
grpc::ByteBuffer GetJobOf(size_t bytes) {
  v1::GetJobRequest request;
  request.set_job_id(std::string(bytes - 4, 'j'));  // its tag and a 3-byte length
  const std::string serialized = request.SerializeAsString();
  EXPECT_EQ(serialized.size(), bytes);
  grpc::Slice slice(serialized);
  return grpc::ByteBuffer(&slice, 1);
}

TEST(ReceiveLimits, RefusalNamesTheMethodTheSizeTheLimitAndTheLargestField) {
  EXPECT_TRUE(CheckReceiveLimit("GetJob", GetJobOf(kSmallRequestBytes)).ok());
  EXPECT_TRUE(CheckReceiveLimit("SubmitJob", GetJobOf(size_t{1} << 20)).ok());
  const grpc::Status s = CheckReceiveLimit("GetJob", GetJobOf(kSmallRequestBytes + 1));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(), HasSubstr("GetJob request is 65537 bytes"));
  EXPECT_THAT(s.error_message(), HasSubstr("limit of 65536 bytes"));
  EXPECT_THAT(s.error_message(), HasSubstr("; the largest field is job_id (65537 bytes)"));
}

TEST(ReceiveLimits, EveryUnaryMethodIsServedWithinItsLimit) {
  // Both directions: the mixin's list is the service's unary methods, no more, no fewer.
  WithReceiveLimits<StreamingBase> service;
  std::vector<std::string> limited(service.listed_methods().begin(),
                                   service.listed_methods().end());
  EXPECT_THAT(limited, UnorderedElementsAreArray(UnaryMethods()));
}

TEST(ReceiveLimits, EveryStreamingMethodParsesItsOwnRequest) {
  // gRPC's callback handlers would answer a malformed request UNIMPLEMENTED with no message.
  std::vector<std::string> streams;
  const google::protobuf::ServiceDescriptor& service =
      *google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::KbenchService::service_full_name());
  for (int i = 0; i < service.method_count(); ++i) {
    if (service.method(i)->server_streaming()) streams.push_back(service.method(i)->name());
  }
  EXPECT_THAT(StreamingBase().listed_streams(), UnorderedElementsAreArray(streams));
}

}  // namespace
}  // namespace kbench::api
