// Page tokens round-trip and reject anything the server did not issue.
#include "server/api/page_token.h"

#include "gtest/gtest.h"

namespace kbench::api {
namespace {

TEST(PageToken, RoundTrips) {
  absl::StatusOr<int64_t> seq = DecodePageToken(EncodePageToken(12345));
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 12345);
}

TEST(PageToken, RejectsForeignTokensNamingTheField) {
  for (const std::string bad : {"", "abc", "!!!", "a2JlbmNoLXBhZ2UtdjE6LTU", "MTIz"}) {
    absl::StatusOr<int64_t> seq = DecodePageToken(bad);
    ASSERT_FALSE(seq.ok()) << bad;
    EXPECT_EQ(seq.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(seq.status().message().find("page_token"), std::string::npos);
  }
}

}  // namespace
}  // namespace kbench::api
