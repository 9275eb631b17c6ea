// The gate on upload requests read at once (server/api/upload_gate.h).
#include "server/api/upload_gate.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::api {
namespace {

using ::testing::HasSubstr;

std::chrono::system_clock::time_point FarDeadline() {
  return std::chrono::system_clock::now() + std::chrono::hours(1);
}

TEST(UploadGate, LetsAsManyInAsItHasPassesAndCountsThem) {
  UploadGate gate(2, absl::Seconds(20));
  absl::StatusOr<UploadGate::Pass> a = gate.Enter(FarDeadline());
  absl::StatusOr<UploadGate::Pass> b = gate.Enter(FarDeadline());
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(gate.in_use(), 2);
  {
    UploadGate::Pass moved = std::move(*a);  // a moved-from pass gives nothing back
    EXPECT_EQ(gate.in_use(), 2);
  }
  EXPECT_EQ(gate.in_use(), 1);
}

TEST(UploadGate, AWaitingCallGetsThePassThatIsGivenBack) {
  UploadGate gate(1, absl::Seconds(30));
  std::optional<absl::StatusOr<UploadGate::Pass>> first(gate.Enter(FarDeadline()));
  ASSERT_TRUE(first->ok());
  std::atomic<bool> entered{false};
  std::thread waiter([&] {
    absl::StatusOr<UploadGate::Pass> second = gate.Enter(FarDeadline());
    entered = second.ok();
  });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(entered.load());  // still waiting: the only pass is held
  first.reset();                 // the first upload ends
  waiter.join();
  EXPECT_TRUE(entered.load());
  EXPECT_EQ(gate.in_use(), 0);
}

TEST(UploadGate, ACallThatWaitsTooLongIsToldToRetryNamingTheLimit) {
  UploadGate gate(1, absl::Milliseconds(20));
  absl::StatusOr<UploadGate::Pass> held = gate.Enter(FarDeadline());
  ASSERT_TRUE(held.ok());
  absl::StatusOr<UploadGate::Pass> refused = gate.Enter(FarDeadline());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(refused.status().message(), HasSubstr("--max-concurrent-uploads 1"));
  EXPECT_THAT(refused.status().message(), HasSubstr("retry"));
  EXPECT_EQ(gate.in_use(), 1);
}

TEST(UploadGate, NeverWaitsPastTheCallersDeadline) {
  // The gate would wait an hour; the call's deadline is half a second away, inside the
  // one-second margin, so the refusal comes at once instead of DEADLINE_EXCEEDED later.
  UploadGate gate(1, absl::Hours(1));
  absl::StatusOr<UploadGate::Pass> held = gate.Enter(FarDeadline());
  ASSERT_TRUE(held.ok());
  absl::StatusOr<UploadGate::Pass> refused =
      gate.Enter(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
}

TEST(UploadGate, ReconfiguredPassesApplyToTheNextCall) {
  UploadGate gate(1, absl::Milliseconds(10));
  absl::StatusOr<UploadGate::Pass> a = gate.Enter(FarDeadline());
  gate.Configure(2, absl::Milliseconds(10));
  absl::StatusOr<UploadGate::Pass> b = gate.Enter(FarDeadline());
  EXPECT_TRUE(b.ok());
}

}  // namespace
}  // namespace kbench::api
