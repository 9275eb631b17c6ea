// CallGate (server/auth/call_gate.h): which calls it admits in each phase, and the wait for the
// calls in flight.
#include "server/auth/call_gate.h"

#include <thread>

#include "gtest/gtest.h"

namespace kbench::auth {
namespace {

TEST(CallGate, AdmitsEveryCallWhileServing) {
  CallGate gate;
  EXPECT_TRUE(gate.Admit(CallKind::kKbench).ok());
  EXPECT_TRUE(gate.Admit(CallKind::kOther).ok());
}

TEST(CallGate, RefusesKbenchCallsUnavailableWhileDraining) {
  CallGate gate;
  gate.Drain();
  const absl::Status refused = gate.Admit(CallKind::kKbench);
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.message(), kShuttingDownMessage);
  EXPECT_TRUE(gate.Admit(CallKind::kOther).ok()) << "health reports NOT_SERVING meanwhile";
}

TEST(CallGate, RefusesEveryCallOnceClosed) {
  CallGate gate;
  gate.Drain();
  gate.Close();
  EXPECT_EQ(gate.Admit(CallKind::kOther).code(), absl::StatusCode::kUnavailable);
  gate.Drain();  // a late Drain does not reopen it
  EXPECT_EQ(gate.Admit(CallKind::kOther).code(), absl::StatusCode::kUnavailable);
}

TEST(CallGate, AwaitNoCallsReturnsOnceTheLastCallInFlightEnds) {
  CallGate gate;
  gate.CallStarted();
  gate.CallStarted();
  gate.CallEnded();
  std::thread last([&gate] { gate.CallEnded(); });
  // Far past the test's own timeout: only the call's end can return it in time.
  EXPECT_EQ(gate.AwaitNoCalls(absl::Now() + absl::Hours(1)), 0);
  last.join();
}

TEST(CallGate, AwaitNoCallsGivesUpAtTheDeadlineWithTheCallsLeft) {
  CallGate gate;
  gate.CallStarted();
  EXPECT_EQ(gate.AwaitNoCalls(absl::Now() + absl::Milliseconds(10)), 1);
}

}  // namespace
}  // namespace kbench::auth
