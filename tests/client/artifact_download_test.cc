// Tests of artifact verification: size, offsets and SHA-256 announced by the first chunk.
#include "client/artifact_download.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "client/errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

// SHA-256 of "abc" (FIPS 180-2, appendix B.1).
constexpr char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

v1::GetArtifactResponse Chunk(int64_t offset, const std::string& data) {
  v1::GetArtifactResponse c;
  c.set_offset(offset);
  c.set_data(data);
  return c;
}

v1::GetArtifactResponse FirstChunk(const std::string& data, int64_t size, const std::string& sha) {
  v1::GetArtifactResponse c = Chunk(0, data);
  c.mutable_info()->set_name("a.bin");
  c.mutable_info()->set_size_bytes(size);
  c.mutable_info()->set_sha256(sha);
  return c;
}

TEST(Sha256Hex, MatchesTheFipsTestVector) { EXPECT_EQ(Sha256Hex("abc"), kAbcSha256); }

TEST(ArtifactVerifier, AcceptsChunksMatchingSizeAndSha256) {
  ArtifactVerifier v("job-1", "a.bin");
  ASSERT_TRUE(v.Add(FirstChunk("a", 3, kAbcSha256)).ok());
  ASSERT_TRUE(v.Add(Chunk(1, "bc")).ok());
  EXPECT_TRUE(v.Finish().ok());
  EXPECT_EQ(v.sha256(), kAbcSha256);
  EXPECT_EQ(v.received(), 3);
}

TEST(ArtifactVerifier, AcceptsUpperCaseAnnouncedHash) {
  ArtifactVerifier v("job-1", "a.bin");
  std::string upper = kAbcSha256;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  ASSERT_TRUE(v.Add(FirstChunk("abc", 3, upper)).ok());
  EXPECT_TRUE(v.Finish().ok());
}

TEST(ArtifactVerifier, FailsOnSha256MismatchWithDataLossAndExitCodeOne) {
  ArtifactVerifier v("job-1", "a.bin");
  ASSERT_TRUE(v.Add(FirstChunk("abd", 3, kAbcSha256)).ok());
  const absl::Status s = v.Finish();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ExitCodeFor(s), ExitCode::kFailed);
  EXPECT_THAT(std::string(s.message()), HasSubstr("sha256 mismatch"));
  EXPECT_THAT(std::string(s.message()), HasSubstr(kAbcSha256));
}

TEST(ArtifactVerifier, FailsWhenFirstChunkHasNoInfo) {
  ArtifactVerifier v("job-1", "a.bin");
  EXPECT_THAT(std::string(v.Add(Chunk(0, "abc")).message()), HasSubstr("no size and sha256"));
}

TEST(ArtifactVerifier, FailsOnGapBetweenChunks) {
  ArtifactVerifier v("job-1", "a.bin");
  ASSERT_TRUE(v.Add(FirstChunk("a", 3, kAbcSha256)).ok());
  EXPECT_THAT(std::string(v.Add(Chunk(2, "c")).message()), HasSubstr("offset 2 after 1 bytes"));
}

TEST(ArtifactVerifier, FailsOnShortAndLongStreams) {
  ArtifactVerifier short_stream("job-1", "a.bin");
  ASSERT_TRUE(short_stream.Add(FirstChunk("ab", 3, kAbcSha256)).ok());
  EXPECT_THAT(std::string(short_stream.Finish().message()), HasSubstr("received 2 bytes of 3"));
  ArtifactVerifier long_stream("job-1", "a.bin");
  EXPECT_THAT(std::string(long_stream.Add(FirstChunk("abcd", 3, kAbcSha256)).message()),
              HasSubstr("more than the announced 3"));
}

TEST(ArtifactVerifier, FailsOnEmptyStream) {
  ArtifactVerifier v("job-1", "a.bin");
  EXPECT_THAT(std::string(v.Finish().message()), HasSubstr("without any chunk"));
}

TEST(CheckArtifactName, AcceptsPlainFileNames) {
  for (const char* name : {"samples.csv", "trace.json", "ncu_fused.ncu-rep", "a..b"}) {
    EXPECT_TRUE(CheckArtifactName(name).ok()) << name;
  }
}

TEST(CheckArtifactName, RefusesLeadingDotsAndPathSeparatorsWithExitCodeOne) {
  const std::vector<std::string> names = {
      ".bashrc", "..", ".", "../x", "a/b", "/etc/passwd", "a\\b", std::string("a\0b", 3), ""};
  for (const std::string& name : names) {
    const absl::Status s = CheckArtifactName(name);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_EQ(ExitCodeFor(s), ExitCode::kFailed) << name;
  }
  EXPECT_THAT(std::string(CheckArtifactName(".bashrc").message()), HasSubstr("starts with a dot"));
}

// A rogue server's name is refused before a connection is made or any file is created.
TEST(DownloadArtifact, RefusesAHiddenNameWithoutWritingAFile) {
  char dir_template[] = "/tmp/kbench-artifact-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::filesystem::path dir = dir_template;
  std::ostringstream out, err;
  Io io;
  io.out = &out;
  io.err = &err;
  // Nothing listens on port 1: a download that got as far as connecting would fail otherwise.
  GlobalOptions options;
  options.server = "127.0.0.1:1";
  Session session(options, io);
  const std::string path = (dir / ".bashrc").string();
  const absl::StatusOr<v1::ArtifactInfo> info = DownloadArtifact(session, "j-1", ".bashrc", path);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument) << info.status();
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kbench::client
