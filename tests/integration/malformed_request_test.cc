// Integration: requests that are not valid protobuf (strings that are not UTF-8, groups nested
// 100,000 deep, a message cut short) sent as raw bytes to a real kbenchd get INVALID_ARGUMENT
// naming the field and the problem (issue 25, item 4), on every kind of handler, and the
// daemon keeps serving.
#include <grpcpp/generic/generic_stub.h>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/integration/raw_call.h"
#include "tests/malformed_requests.h"
#include "tests/wire_bytes.h"

namespace kbench::testing {
namespace {

constexpr auto kCallTimeout = std::chrono::seconds(10);

std::string PathOf(const std::string& method) { return "/kbench.v1.KbenchService/" + method; }

class MalformedRequestTest : public ::testing::Test {
 protected:
  grpc::Status Send(const std::string& method, const std::string& bytes) {
    return RawCall(stub_, PathOf(method), bytes, kCallTimeout);
  }

  TempDir dir_;
  Daemon daemon_{dir_.path(), {"--no-cuda"}};
  grpc::GenericStub stub_{daemon_.channel()};
};

TEST_F(MalformedRequestTest, EachOfIssueTwentyFivesRequestsIsRefusedNamingItsDefect) {
  for (const MalformedRequest& request : IssueTwentyFiveMalformedRequests()) {
    const grpc::Status status = Send(request.method, request.bytes);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << request.what << ": " << status.error_code() << " '" << status.error_message() << "'";
    EXPECT_EQ(status.error_message(), request.refusal) << request.what;
  }
  // Still serving.
  EXPECT_EQ(RunToEnd(daemon_, QuickCpuSpec()).state(), v1::JOB_STATE_SUCCEEDED);
}

TEST_F(MalformedRequestTest, SizeLimitedMethodsNameTheDefect) {
  const grpc::Status status = Send("GetJob", wire::LengthDelimited(1, "j-\xff"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_EQ(status.error_message(),
            "request kbench.v1.GetJobRequest: field job_id (1) is not valid UTF-8 at byte 2");
}

TEST_F(MalformedRequestTest, StreamingMethodsNameTheDefect) {
  // gRPC's callback handlers would answer UNIMPLEMENTED with no message.
  grpc::Status status = Send("WatchJob", wire::LengthDelimited(1, "j-\xff"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_EQ(status.error_message(),
            "request kbench.v1.WatchJobRequest: field job_id (1) is not valid UTF-8 at byte 2");

  status = Send("GetArtifact", wire::LengthDelimited(1, "j-1") + wire::Tag(2, wire::kFixed32));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_EQ(status.error_message(),
            "request kbench.v1.GetArtifactRequest is truncated: field name (2) ends past the "
            "message (byte 10 of 6)");
}

TEST_F(MalformedRequestTest, WellFormedRawRequestsStillReachTheirHandlers) {
  const grpc::Status status = Send("WatchJob", wire::LengthDelimited(1, "j-0000000000000000"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
  EXPECT_EQ(Send("SubmitJob", WellFormedSubmit()).error_code(), grpc::StatusCode::OK);
}

}  // namespace
}  // namespace kbench::testing
