// The early authentication processor (server/api/early_auth.h) on its own: which calls need
// credentials, and its answers, as gRPC's server auth filter would see them.
#include "server/api/early_auth.h"

#include <unistd.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "server/auth/auth_file.h"
#include "server/auth/token.h"

namespace kbench::api {
namespace {

using Metadata = grpc::AuthMetadataProcessor::InputMetadata;

class EarlyAuthProcessorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kbench-early-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    auth::AuthFile users;
    auth::AddToken(&users, "alice", std::nullopt, auth::Sha256Hex("alice-token"));
    ASSERT_TRUE(auth::SaveAuthFile(dir_ + "/users.yaml", users).ok());
    auto created = auth::Authenticator::Create({dir_ + "/users.yaml", false});
    ASSERT_TRUE(created.ok()) << created.status();
    authenticator_ = *std::move(created);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  grpc::Status Process(const Metadata& metadata) {
    EarlyAuthProcessor processor(authenticator_.get(), &gate_);
    grpc::AuthMetadataProcessor::OutputMetadata consumed, response;
    const grpc::Status s = processor.Process(metadata, nullptr, &consumed, &response);
    EXPECT_TRUE(consumed.empty()) << "the handlers still read the token";
    return s;
  }

  std::string dir_;
  std::unique_ptr<auth::Authenticator> authenticator_;
  auth::CallGate gate_;
};

TEST(EarlyAuth, OnlyKbenchMethodsNeedCredentials) {
  EXPECT_TRUE(NeedsCredentials("/kbench.v1.KbenchService/SubmitJob"));
  EXPECT_FALSE(NeedsCredentials("/grpc.health.v1.Health/Check"));
  EXPECT_FALSE(NeedsCredentials("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"));
}

TEST_F(EarlyAuthProcessorTest, AcceptsAKnownTokenOnAKbenchCall) {
  EXPECT_TRUE(Process({{":path", "/kbench.v1.KbenchService/GetJob"},
                       {"authorization", "Bearer alice-token"}})
                  .ok());
}

TEST_F(EarlyAuthProcessorTest, RefusesAnUnknownTokenUnauthenticated) {
  const grpc::Status s =
      Process({{":path", "/kbench.v1.KbenchService/SubmitJob"}, {"authorization", "Bearer nope"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(s.error_message().find("bearer token is not valid"), std::string::npos);
}

TEST_F(EarlyAuthProcessorTest, LetsHealthChecksThroughWithoutCredentials) {
  EXPECT_TRUE(Process({{":path", "/grpc.health.v1.Health/Check"}}).ok());
}

TEST_F(EarlyAuthProcessorTest, FailsClosedWithoutAPath) {
  EXPECT_EQ(Process({}).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(EarlyAuthProcessorTest, RefusesAKbenchCallUnavailableWhileDrainingEvenWithAGoodToken) {
  gate_.Drain();
  const grpc::Status s = Process(
      {{":path", "/kbench.v1.KbenchService/SubmitJob"}, {"authorization", "Bearer alice-token"}});
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(s.error_message(), auth::kShuttingDownMessage);
  EXPECT_EQ(Process({}).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(EarlyAuthProcessorTest, ServesHealthChecksWhileDrainingButNotOnceClosed) {
  gate_.Drain();
  EXPECT_TRUE(Process({{":path", "/grpc.health.v1.Health/Check"}}).ok());
  gate_.Close();
  EXPECT_EQ(Process({{":path", "/grpc.health.v1.Health/Check"}}).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace kbench::api
