// Stream caps: in total, per identity, released with the slot.
#include "server/api/stream_limiter.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::api {
namespace {

using ::testing::HasSubstr;

TEST(StreamLimiter, RefusesBeyondThePerIdentityCapNamingIt) {
  StreamLimiter limiter(10, 2);
  absl::StatusOr<StreamSlot> a = limiter.Acquire("alice");
  absl::StatusOr<StreamSlot> b = limiter.Acquire("alice");
  ASSERT_TRUE(a.ok() && b.ok());
  const absl::StatusOr<StreamSlot> c = limiter.Acquire("alice");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("--max-streams-per-identity 2"));
  EXPECT_TRUE(limiter.Acquire("bob").ok());
}

TEST(StreamLimiter, RefusesBeyondTheTotalCapNamingIt) {
  StreamLimiter limiter(2, 10);
  absl::StatusOr<StreamSlot> a = limiter.Acquire("alice");
  absl::StatusOr<StreamSlot> b = limiter.Acquire("bob");
  ASSERT_TRUE(a.ok() && b.ok());
  const absl::StatusOr<StreamSlot> c = limiter.Acquire("carol");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("--max-streams 2"));
}

TEST(StreamLimiter, ReleasesASlotWhenItIsDestroyedOrMovedOver) {
  StreamLimiter limiter(1, 1);
  {
    absl::StatusOr<StreamSlot> a = limiter.Acquire("alice");
    ASSERT_TRUE(a.ok());
    StreamSlot moved = *std::move(a);
    EXPECT_EQ(limiter.open(), 1);
    EXPECT_EQ(limiter.open_for("alice"), 1);
  }
  EXPECT_EQ(limiter.open(), 0);
  EXPECT_EQ(limiter.open_for("alice"), 0);
  absl::StatusOr<StreamSlot> b = limiter.Acquire("bob");
  ASSERT_TRUE(b.ok());
  *b = StreamSlot();
  EXPECT_EQ(limiter.open(), 0);
}

}  // namespace
}  // namespace kbench::api
