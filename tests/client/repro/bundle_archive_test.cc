// Bundle files: a round trip keeps every member byte for byte; a member changed behind the
// manifest's back, or one it does not list, is refused naming the member.
#include "client/repro/bundle_archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (name + "_" + std::to_string(::getpid()) + ".kbench"))
      .string();
}

// Writes `members` as a plain tar with no manifest check: a hand-made (tampered) bundle.
void WriteRawTar(const std::string& path, const BundleMembers& members) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& [name, bytes] : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, bytes.data(), bytes.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

// Every member of a bundle, the manifest included, read without checks.
BundleMembers ReadRawTar(const std::string& path) {
  BundleMembers members;
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  EXPECT_EQ(archive_read_open_filename(a, path.c_str(), 1 << 16), ARCHIVE_OK);
  archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string bytes(archive_entry_size(e), '\0');
    archive_read_data(a, bytes.data(), bytes.size());
    members[archive_entry_pathname(e)] = bytes;
  }
  archive_read_free(a);
  return members;
}

const BundleMembers kMembers = {{"job.json", "{\"id\": \"j-1\"}\n"},
                                {"code/@user", std::string("\x7f"
                                                           "ELF\0\1",
                                                           6)},
                                {"samples/host_loop.txt", "0.001\n0.002\n"}};

TEST(Bundle, RoundTripKeepsEveryMember) {
  const std::string path = TempPath("roundtrip");
  ASSERT_TRUE(WriteBundle(path, kMembers, "j-1", "0.1").ok());
  absl::StatusOr<BundleMembers> read = ReadBundle(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, kMembers);
  EXPECT_FALSE(std::filesystem::exists(path + ".part"));
  std::filesystem::remove(path);
}

TEST(Bundle, RefusesAMemberChangedBehindTheManifest) {
  const std::string path = TempPath("tampered");
  ASSERT_TRUE(WriteBundle(path, kMembers, "j-1", "0.1").ok());
  BundleMembers raw = ReadRawTar(path);
  raw["samples/host_loop.txt"] = "0.0001\n0.002\n";  // a faster sample, same manifest
  WriteRawTar(path, raw);
  absl::StatusOr<BundleMembers> read = ReadBundle(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(read.status().message().find("member samples/host_loop.txt does not match"),
            std::string::npos)
      << read.status();
  std::filesystem::remove(path);
}

TEST(Bundle, RefusesAMemberTheManifestDoesNotList) {
  const std::string path = TempPath("extra");
  ASSERT_TRUE(WriteBundle(path, kMembers, "j-1", "0.1").ok());
  BundleMembers raw = ReadRawTar(path);
  raw["code/@other"] = "__global__ void k() {}";
  WriteRawTar(path, raw);
  absl::StatusOr<BundleMembers> read = ReadBundle(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("member code/@other is not listed"), std::string::npos)
      << read.status();
  std::filesystem::remove(path);
}

TEST(Bundle, RefusesAFileThatIsNoBundle) {
  const std::string path = TempPath("notabundle");
  WriteRawTar(path, {{"job.json", "{}"}});
  absl::StatusOr<BundleMembers> read = ReadBundle(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("no manifest.json"), std::string::npos) << read.status();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kbench::client
