// The executor wire's framing: a round trip, and every malformed stream refused as DATA_LOSS
// (never a hang or a huge allocation), the end of a stream as OUT_OF_RANGE.
#include "server/common/wire.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "kbench/internal/v1/executor.pb.h"

namespace kbench {
namespace {

class WireTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  // Writes raw bytes, then closes the writing end so that a short read sees end of stream.
  void WriteRawAndClose(const std::string& bytes) {
    ASSERT_EQ(write(fds_[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fds_[1]);
    fds_[1] = -1;
  }
  static std::string Prefix(uint32_t len) {
    return std::string{static_cast<char>(len & 0xff), static_cast<char>((len >> 8) & 0xff),
                       static_cast<char>((len >> 16) & 0xff), static_cast<char>(len >> 24)};
  }
  int fds_[2] = {-1, -1};
};

TEST_F(WireTest, RoundTripsAMessage) {
  internal::v1::ExecutorRequest sent;
  sent.mutable_cancel()->set_job_id("job-1");
  ASSERT_TRUE(WriteDelimited(fds_[1], sent).ok());
  internal::v1::ExecutorRequest got;
  ASSERT_TRUE(ReadDelimited(fds_[0], &got).ok());
  EXPECT_EQ(got.cancel().job_id(), "job-1");
}

TEST_F(WireTest, EndOfStreamBeforeAFrameIsOutOfRange) {
  WriteRawAndClose("");
  internal::v1::ExecutorRequest got;
  EXPECT_EQ(ReadDelimited(fds_[0], &got).code(), absl::StatusCode::kOutOfRange);
}

TEST_F(WireTest, RefusesAnOversizedLengthWithoutReadingTheBody) {
  WriteRawAndClose(Prefix(kMaxWireMessageBytes + 1));
  internal::v1::ExecutorRequest got;
  const absl::Status s = ReadDelimited(fds_[0], &got);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("exceeds"), std::string::npos) << s;
}

TEST_F(WireTest, RefusesATruncatedLengthPrefix) {
  WriteRawAndClose(std::string("\x05\x00", 2));
  internal::v1::ExecutorRequest got;
  EXPECT_EQ(ReadDelimited(fds_[0], &got).code(), absl::StatusCode::kDataLoss);
}

TEST_F(WireTest, RefusesATruncatedBody) {
  WriteRawAndClose(Prefix(10) + "abc");
  internal::v1::ExecutorRequest got;
  const absl::Status s = ReadDelimited(fds_[0], &got);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s;
}

TEST_F(WireTest, RefusesAnUnparseableBody) {
  WriteRawAndClose(Prefix(2) + std::string("\xff\xff", 2));
  internal::v1::ExecutorRequest got;
  EXPECT_EQ(ReadDelimited(fds_[0], &got).code(), absl::StatusCode::kDataLoss);
}

TEST_F(WireTest, RefusesToWriteAnOversizedMessage) {
  internal::v1::ExecutorRequest big;
  big.mutable_cancel()->set_job_id(std::string(kMaxWireMessageBytes + 1, 'x'));
  EXPECT_FALSE(WriteDelimited(fds_[1], big).ok());
}

}  // namespace
}  // namespace kbench
