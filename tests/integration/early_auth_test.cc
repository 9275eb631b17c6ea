// Issue 24, item 4: a real kbenchd with an auth file refuses an unauthenticated call before
// reading its message, refuses an oversized request to a non-upload method naming the limit,
// and still takes an authenticated user kernel near the 32 MiB code limit.
#include <chrono>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

namespace kbench::testing {
namespace {

using grpc::StatusCode;
using ::testing::HasSubstr;

v1::SubmitJobRequest SubmitWithCubin(size_t code_bytes) {
  v1::SubmitJobRequest request;
  request.mutable_spec()->set_kernel("softmax");
  request.mutable_spec()->set_device("cpu");
  v1::UserKernel* kernel = request.mutable_spec()->add_user_kernels();
  kernel->set_name("@big");
  kernel->set_form(v1::USER_KERNEL_FORM_CUBIN);
  kernel->set_entry("big");
  kernel->set_code(std::string(code_bytes, 'x'));
  return request;
}

class EarlyAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    auth_file_ = dir_.path() + "/users.yaml";
    token_ = MintToken(auth_file_, "alice");
    daemon_ = std::make_unique<Daemon>(dir_.path() + "/data",
                                       std::vector<std::string>{"--auth-file", auth_file_});
    stub_ = v1::KbenchService::NewStub(ChannelTo(daemon_->address(), ""));
  }

  TempDir dir_;
  std::string auth_file_;
  std::string token_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<v1::KbenchService::Stub> stub_;
};

TEST_F(EarlyAuth, RefusesALargeSubmitWithABadTokenUnauthenticated) {
  v1::SubmitJobResponse response;
  const grpc::Status s =
      stub_->SubmitJob(ContextFor("not-a-token").get(), SubmitWithCubin(8 << 20), &response);
  EXPECT_EQ(s.error_code(), StatusCode::UNAUTHENTICATED) << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr("bearer token is not valid"));
}

TEST_F(EarlyAuth, RefusesACallWithoutCredentialsSayingWhatToSend) {
  v1::ListJobsResponse response;
  const grpc::Status s = stub_->ListJobs(ContextFor("").get(), {}, &response);
  EXPECT_EQ(s.error_code(), StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(s.error_message(), HasSubstr("authorization: Bearer TOKEN"));
}

TEST_F(EarlyAuth, RefusesAnOversizedGetJobNamingItsLimit) {
  v1::GetJobRequest request;
  request.set_job_id(std::string(100 << 10, 'j'));
  v1::GetJobResponse response;
  const grpc::Status s = stub_->GetJob(ContextFor(token_).get(), request, &response);
  EXPECT_EQ(s.error_code(), StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr("GetJob request is"));
  EXPECT_THAT(s.error_message(), HasSubstr("65536 bytes"));
}

TEST_F(EarlyAuth, AuthenticatedCallsStillWork) {
  v1::ListJobsResponse response;
  const grpc::Status s = stub_->ListJobs(ContextFor(token_).get(), {}, &response);
  EXPECT_TRUE(s.ok()) << s.error_message();
}

TEST_F(EarlyAuth, AuthenticatedUserKernelsReachValidation) {
  // Under the 32 MiB code limit: past the transport and the method's limit, to validation.
  v1::SubmitJobResponse response;
  grpc::Status s = stub_->SubmitJob(ContextFor(token_).get(), SubmitWithCubin(31 << 20), &response);
  EXPECT_NE(s.error_code(), StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_code(), StatusCode::UNAUTHENTICATED) << s.error_message();
  // Over it (35 MiB): refused by validation naming the code limit, not by the transport.
  s = stub_->SubmitJob(ContextFor(token_).get(), SubmitWithCubin(35 << 20), &response);
  EXPECT_EQ(s.error_code(), StatusCode::INVALID_ARGUMENT) << s.error_message();
}

}  // namespace
}  // namespace kbench::testing
