// The hold for writes the store refused: what it writes survives a restart, a half-written entry
// is dropped, and an artifact the store refuses is held and later stored with its bytes.
#include "server/store/held_writes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/artifact_store.h"
#include "server/store/resilient_job_store.h"
#include "tests/server/store/failing_vfs.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::store {
namespace {

namespace fs = std::filesystem;
using testing::FailingVfs;
using ::testing::HasSubstr;
using testing::ScopedFullDisk;

class HeldWritesTest : public testing::TempDataDirTest {
 protected:
  std::string Held() const { return data_dir_ + "/held"; }
  // A file of `bytes` named `name` in the data directory.
  std::string Source(const std::string& name, const std::string& bytes) {
    return WriteFile(fs::path(data_dir_) / name, bytes);
  }
};

TEST(HeldFinishEncoding, RoundTripsAnyBytesAndRefusesATruncatedFile) {
  HeldFinish finish{JobState::kSucceeded, absl::StatusCode::kOk, "line one\nline two",
                    std::string("\0\n7 x\n", 6), 1234567890123};
  const std::string bytes = EncodeHeldFinish(finish);
  absl::StatusOr<HeldFinish> back = DecodeHeldFinish(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->state, JobState::kSucceeded);
  EXPECT_EQ(back->error, finish.error);
  EXPECT_EQ(back->result, finish.result);
  EXPECT_EQ(back->finish_time_ns, finish.finish_time_ns);
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_EQ(DecodeHeldFinish(bytes.substr(0, cut)).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "cut at " << cut;
  }
  finish.state = JobState::kRunning;
  EXPECT_THAT(DecodeHeldFinish(EncodeHeldFinish(finish)).status().message(),
              HasSubstr("not terminal"));
}

TEST(HeldFinishEncoding, KeepsTheStatusCode) {
  const HeldFinish finish{JobState::kFailed, absl::StatusCode::kDataLoss, "torn", "", 5};
  absl::StatusOr<HeldFinish> back = DecodeHeldFinish(EncodeHeldFinish(finish));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->code, absl::StatusCode::kDataLoss);
}

// A state held before the code was a number (version 1: its name) outlives an upgrade; a name
// that is no code reads as the store's migration 16 reads one.
TEST(HeldFinishEncoding, ReadsAStateHeldWithTheCodesName) {
  auto held_by_name = [](const std::string& state, const std::string& name) {
    return absl::StrCat("kbench-held-finish 1\nstate ", state.size(), "\n", state,
                        "\nfinish_time_ns 1\n9\nerror_code ", name.size(), "\n", name,
                        "\nerror 4\nboom\nresult 0\n\n");
  };
  absl::StatusOr<HeldFinish> internal = DecodeHeldFinish(held_by_name("failed", "INTERNAL"));
  ASSERT_TRUE(internal.ok()) << internal.status();
  EXPECT_EQ(internal->code, absl::StatusCode::kInternal);
  EXPECT_EQ(internal->error, "boom");
  EXPECT_EQ(internal->finish_time_ns, 9);
  EXPECT_EQ(DecodeHeldFinish(held_by_name("failed", "NO_SUCH_CODE"))->code,
            absl::StatusCode::kUnknown);
  EXPECT_EQ(DecodeHeldFinish(held_by_name("succeeded", ""))->code, absl::StatusCode::kOk);
}

TEST_F(HeldWritesTest, WhatIsHeldSurvivesARestartAndReleasingRemovesIt) {
  {
    HeldWrites held(Held());
    ASSERT_TRUE(held.HoldArtifact("j1", "samples.csv", Source("s.csv", "1,2\n"), "text/csv").ok());
    held.HoldFinish("j1", HeldFinish{JobState::kFailed, absl::StatusCode::kInternal,
                                     "the kernel faulted", "", 9});
    EXPECT_EQ(held.Count(), 2);
  }
  HeldWrites again(Held());
  ASSERT_TRUE(again.Load().ok());
  ASSERT_EQ(again.Artifacts().size(), 1u);
  const HeldArtifact artifact = again.Artifacts()[0];
  EXPECT_EQ(artifact.name, "samples.csv");
  EXPECT_EQ(artifact.content_type, "text/csv");
  EXPECT_EQ(ReadFile(artifact.path), "1,2\n");
  ASSERT_TRUE(again.FinishOf("j1").has_value());
  EXPECT_EQ(again.FinishOf("j1")->error, "the kernel faulted");
  again.ReleaseArtifact("j1", "samples.csv");
  again.ReleaseFinish("j1");
  EXPECT_EQ(again.Count(), 0);
  EXPECT_FALSE(fs::exists(Held() + "/j1"));
}

TEST_F(HeldWritesTest, AnEntryHalfWrittenWhenKbenchdDiedIsDropped) {
  {
    HeldWrites held(Held());
    held.HoldFinish("j1", HeldFinish{JobState::kSucceeded, absl::StatusCode::kOk, "", "r", 1});
  }
  // A second state cut short (the temporary file) beside a whole one: the whole one stands; a
  // torn file of another job is dropped.
  std::ofstream(Held() + "/j1/finish.writing") << "kbench-held-finish 1\nstate 9\nsucc";
  fs::create_directories(Held() + "/j2");
  std::ofstream(Held() + "/j2/finish") << "kbench-held-finish 1\nstate 9\nsucc";
  HeldWrites again(Held());
  ASSERT_TRUE(again.Load().ok());
  EXPECT_TRUE(again.FinishOf("j1").has_value());
  EXPECT_FALSE(again.FinishOf("j2").has_value());
}

TEST_F(HeldWritesTest, AnArtifactTheStoreRefusesIsHeldThenStoredWithItsBytes) {
  FailingVfs::Install();
  auto opened = JobStore::Open(data_dir_);
  ASSERT_TRUE(opened.ok()) << opened.status();
  HeldWrites held(Held());
  ResilientJobStore jobs(*std::move(opened), WriteRetryPolicy{1, absl::Milliseconds(1)},
                         StoreWhereabouts{data_dir_, ""}, &held);
  ArtifactStore artifacts(data_dir_, &jobs, RetentionPolicy{0, 0}, nullptr, &held);
  JobRecord job;
  job.id = "j1";
  job.device = "cpu";
  job.spec = "spec";
  ASSERT_TRUE(jobs.Insert(job).ok());
  const std::string bytes(100000, 'x');
  const std::string source = Source("samples.csv", bytes);
  {
    ScopedFullDisk full;
    absl::StatusOr<ArtifactRecord> imported =
        artifacts.Import("j1", "samples.csv", source, "text/csv");
    EXPECT_EQ(imported.status().code(), absl::StatusCode::kUnavailable) << imported.status();
    EXPECT_THAT(imported.status().message(), HasSubstr("held on this host"));
    EXPECT_FALSE(artifacts.WriteHeldArtifacts().ok());
  }
  EXPECT_FALSE(fs::exists(source)) << "the bytes moved into the hold";
  absl::StatusOr<int64_t> written = artifacts.WriteHeldArtifacts();
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 1);
  absl::StatusOr<ArtifactRecord> stored = jobs.GetArtifact("j1", "samples.csv");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->content_type, "text/csv");
  EXPECT_EQ(ReadFile(artifacts.PathOf(*stored)), bytes);
  EXPECT_EQ(*Sha256OfFile(artifacts.PathOf(*stored)), stored->sha256);
  EXPECT_EQ(held.Count(), 0);
}

}  // namespace
}  // namespace kbench::store
