// CallIdentities: what the call authentication interceptor records for a call is what its
// handler reads, until the call ends; a call it never saw is refused, never anonymous.
#include "server/api/call_identity.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

namespace kbench::api {
namespace {

const auth::Identity kAlice{"alice", auth::Role::kUser, auth::Identity::Method::kToken};

TEST(CallIdentities, AHandlerReadsWhatTheInterceptorRecordedUntilTheCallEnds) {
  CallIdentities callers;
  grpc::ServerContext call;
  const uint64_t ticket = callers.Remember(&call, kAlice);
  absl::StatusOr<auth::Identity> caller = callers.Of(call);
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->name, "alice");
  callers.Forget(&call, ticket);
  EXPECT_EQ(callers.Of(call).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(callers.size(), 0u);
}

TEST(CallIdentities, AFailedAuthenticationIsHandedOnAsItsReason) {
  CallIdentities callers;
  grpc::ServerContext call;
  callers.Remember(&call, absl::UnavailableError("kbenchd is draining"));
  const absl::Status refused = callers.Of(call).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), "kbenchd is draining");
}

TEST(CallIdentities, AnEarlierCallsEndDoesNotForgetALaterCallOnTheSameContext) {
  CallIdentities callers;
  grpc::ServerContext call;
  const uint64_t earlier = callers.Remember(&call, absl::UnauthenticatedError("old"));
  const uint64_t later = callers.Remember(&call, kAlice);
  callers.Forget(&call, earlier);
  ASSERT_TRUE(callers.Of(call).ok());
  callers.Forget(&call, later);
  EXPECT_FALSE(callers.Of(call).ok());
}

TEST(CallIdentities, EachCallIsItsOwn) {
  CallIdentities callers;
  grpc::ServerContext alices, strangers, unseen;
  callers.Remember(&alices, kAlice);
  callers.Remember(&strangers, absl::UnauthenticatedError("no token"));
  EXPECT_EQ(callers.Of(alices)->name, "alice");
  EXPECT_EQ(callers.Of(strangers).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(callers.Of(unseen).status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace kbench::api
