// Tests of the ArtifactStore: import (move, size, SHA-256, record), name validation, work
// directories, and retention by bytes and by age, oldest first.
#include "server/store/artifact_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::store {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// FIPS 180-2 test vectors.
constexpr char kSha256Abc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr char kSha256Empty[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kSha256MillionA[] =
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
constexpr int64_t kNsPerSecond = 1'000'000'000;

class ArtifactStoreTest : public testing::TempDataDirTest {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    absl::StatusOr<std::unique_ptr<JobStore>> jobs = JobStore::Open(data_dir_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = std::move(*jobs);
    for (const char* id : {"job-1", "job-2", "job-3"}) {
      JobRecord job;
      job.id = id;
      job.device = "cpu";
      job.kernel = "softmax";
      job.kind = JobKind::kProfile;
      ASSERT_TRUE(jobs_->Insert(job).ok());
    }
  }

  std::unique_ptr<ArtifactStore> MakeStore(int64_t max_total_bytes = 0,
                                           int64_t max_age_seconds = 0) {
    RetentionPolicy retention;
    retention.max_total_bytes = max_total_bytes;
    retention.max_age_seconds = max_age_seconds;
    return std::make_unique<ArtifactStore>(data_dir_, jobs_.get(), retention);
  }

  // A file an executor would have written, outside the artifact tree.
  std::string ExecutorFile(const std::string& name, const std::string& contents) {
    return WriteFile(fs::path(data_dir_) / "executor-out" / name, contents);
  }

  ArtifactRecord MustImport(ArtifactStore& store, const std::string& job_id,
                            const std::string& name, const std::string& contents) {
    absl::StatusOr<ArtifactRecord> record =
        store.Import(job_id, name, ExecutorFile(name, contents), "text/plain");
    EXPECT_TRUE(record.ok()) << record.status();
    return record.ok() ? *record : ArtifactRecord{};
  }

  std::vector<std::string> StoredNames() {
    absl::StatusOr<std::vector<ArtifactRecord>> all = jobs_->AllArtifacts();
    EXPECT_TRUE(all.ok()) << all.status();
    std::vector<std::string> names;
    if (all.ok()) {
      for (const ArtifactRecord& record : *all) names.push_back(record.name);
    }
    return names;
  }

  std::unique_ptr<JobStore> jobs_;
};

TEST_F(ArtifactStoreTest, Sha256OfFileMatchesKnownVectors) {
  absl::StatusOr<std::string> abc = Sha256OfFile(ExecutorFile("abc", "abc"));
  ASSERT_TRUE(abc.ok()) << abc.status();
  EXPECT_EQ(*abc, kSha256Abc);
  absl::StatusOr<std::string> empty = Sha256OfFile(ExecutorFile("empty", ""));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*empty, kSha256Empty);
  // Spans many read buffers, so the digest must be streamed correctly.
  absl::StatusOr<std::string> million =
      Sha256OfFile(ExecutorFile("million", std::string(1'000'000, 'a')));
  ASSERT_TRUE(million.ok()) << million.status();
  EXPECT_EQ(*million, kSha256MillionA);
}

TEST_F(ArtifactStoreTest, Sha256OfMissingFileIsNotFoundNamingThePath) {
  std::string path = (fs::path(data_dir_) / "missing.bin").string();
  absl::Status status = Sha256OfFile(path).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
}

TEST_F(ArtifactStoreTest, ImportMovesFileAndRecordsSizeAndSha256) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  std::string source = ExecutorFile("trace.json", "abc");
  absl::StatusOr<ArtifactRecord> record =
      store->Import("job-1", "trace.json", source, "application/json");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->job_id, "job-1");
  EXPECT_EQ(record->name, "trace.json");
  EXPECT_EQ(record->relative_path, "job-1/trace.json");
  EXPECT_EQ(record->content_type, "application/json");
  EXPECT_EQ(record->size_bytes, 3);
  EXPECT_EQ(record->sha256, kSha256Abc);
  EXPECT_GT(record->create_time_ns, 0);

  EXPECT_FALSE(fs::exists(source)) << "the source should have been moved";
  std::string stored = store->PathOf(*record);
  EXPECT_EQ(stored, (fs::path(data_dir_) / "artifacts" / "job-1" / "trace.json").string());
  EXPECT_EQ(ReadFile(stored), "abc");
  // Nothing but the artifact is left in the job's directory (no staging file).
  int entries = 0;
  for ([[maybe_unused]] const auto& entry :
       fs::directory_iterator(fs::path(stored).parent_path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1);

  absl::StatusOr<ArtifactRecord> recorded = jobs_->GetArtifact("job-1", "trace.json");
  ASSERT_TRUE(recorded.ok()) << recorded.status();
  EXPECT_EQ(recorded->sha256, kSha256Abc);
  EXPECT_EQ(recorded->size_bytes, 3);
  EXPECT_EQ(recorded->create_time_ns, record->create_time_ns);
}

TEST_F(ArtifactStoreTest, ImportWithoutContentTypeStoresOctetStream) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  absl::StatusOr<ArtifactRecord> record =
      store->Import("job-1", "blob", ExecutorFile("blob", "xyz"), "");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->content_type, "application/octet-stream");
}

TEST_F(ArtifactStoreTest, ImportRejectsBadNamesAndLeavesTheSourceAlone) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  std::string source = ExecutorFile("payload", "abc");
  for (const std::string& name :
       {std::string(""), std::string("a/b"), std::string(".."), std::string("."),
        std::string("../escape"), std::string("x..y"), std::string(".hidden"),
        std::string("nul\0byte", 8), std::string(300, 'n')}) {
    SCOPED_TRACE(absl::StrCat("name '", name, "'"));
    absl::Status status = store->Import("job-1", name, source, "text/plain").status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("artifact name"));
  }
  EXPECT_EQ(ReadFile(source), "abc");
  EXPECT_TRUE(StoredNames().empty());
  EXPECT_FALSE(fs::exists(fs::path(data_dir_) / "escape"));
}

TEST_F(ArtifactStoreTest, ImportAndWorkDirRejectJobIdsThatEscapeTheTree) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  std::string source = ExecutorFile("payload", "abc");
  for (const std::string job_id : {"", "..", "../job-1", "a/b"}) {
    SCOPED_TRACE(absl::StrCat("job_id '", job_id, "'"));
    EXPECT_EQ(store->Import(job_id, "t", source, "").status().code(),
              absl::StatusCode::kInvalidArgument);
    absl::Status work = store->WorkDir(job_id).status();
    EXPECT_EQ(work.code(), absl::StatusCode::kInvalidArgument) << work;
    EXPECT_THAT(std::string(work.message()), HasSubstr("job_id"));
  }
  EXPECT_EQ(ReadFile(source), "abc");
}

TEST_F(ArtifactStoreTest, ImportForUnknownJobIsNotFoundAndLeavesTheSourceAlone) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  std::string source = ExecutorFile("t", "abc");
  absl::Status status = store->Import("no-such-job", "t", source, "").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("no-such-job"));
  EXPECT_EQ(ReadFile(source), "abc");
}

TEST_F(ArtifactStoreTest, ImportOfMissingSourceIsNotFoundNamingIt) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  std::string source = (fs::path(data_dir_) / "never-written").string();
  absl::Status status = store->Import("job-1", "t", source, "").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(source));
  EXPECT_TRUE(StoredNames().empty());
}

TEST_F(ArtifactStoreTest, ImportOfFileOverTheByteLimitIsResourceExhausted) {
  std::unique_ptr<ArtifactStore> store = MakeStore(10);
  ArtifactRecord small = MustImport(*store, "job-1", "small", "12345");
  std::string source = ExecutorFile("big", std::string(11, 'x'));
  absl::Status status = store->Import("job-1", "big", source, "").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("11 bytes"));
  // Refused before anything moved or was evicted.
  EXPECT_TRUE(fs::exists(source));
  EXPECT_EQ(StoredNames(), std::vector<std::string>{"small"});
  EXPECT_TRUE(fs::exists(store->PathOf(small)));
}

TEST_F(ArtifactStoreTest, ImportingANameAgainReplacesIt) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  MustImport(*store, "job-1", "trace.json", "first version");
  ArtifactRecord second = MustImport(*store, "job-1", "trace.json", "abc");
  EXPECT_EQ(ReadFile(store->PathOf(second)), "abc");
  absl::StatusOr<ArtifactRecord> recorded = jobs_->GetArtifact("job-1", "trace.json");
  ASSERT_TRUE(recorded.ok());
  EXPECT_EQ(recorded->sha256, kSha256Abc);
  absl::StatusOr<int64_t> total = store->TotalBytes();
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(*total, 3);
}

TEST_F(ArtifactStoreTest, ImportCopiesAcrossFileSystems) {
  // rename(2) fails with EXDEV across file systems; /dev/shm (tmpfs) is usually a different one.
  struct stat shm_stat, data_stat;
  if (stat("/dev/shm", &shm_stat) != 0 || stat(data_dir_.c_str(), &data_stat) != 0 ||
      shm_stat.st_dev == data_stat.st_dev) {
    GTEST_SKIP() << "no second file system (/dev/shm) to import from";
  }
  std::string source =
      WriteFile(fs::path("/dev/shm") / absl::StrCat("kbench-store-test-", getpid()), "abc");
  std::unique_ptr<ArtifactStore> store = MakeStore();
  absl::StatusOr<ArtifactRecord> record = store->Import("job-1", "copied", source, "");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_FALSE(fs::exists(source));
  EXPECT_EQ(record->sha256, kSha256Abc);
  EXPECT_EQ(ReadFile(store->PathOf(*record)), "abc");
}

TEST_F(ArtifactStoreTest, WorkDirIsFreshAndEmpty) {
  std::unique_ptr<ArtifactStore> store = MakeStore();
  absl::StatusOr<std::string> dir = store->WorkDir("job-1");
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(*dir, (fs::path(data_dir_) / "work" / "job-1").string());
  ASSERT_TRUE(fs::is_directory(*dir));
  WriteFile(fs::path(*dir) / "leftover" / "trace.json", "from a failed attempt");

  absl::StatusOr<std::string> again = store->WorkDir("job-1");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, *dir);
  EXPECT_TRUE(fs::is_directory(*again));
  EXPECT_TRUE(fs::is_empty(*again));
}

TEST_F(ArtifactStoreTest, RetentionByBytesEvictsOldestFirstOnImport) {
  std::unique_ptr<ArtifactStore> store = MakeStore(250);
  ArtifactRecord a = MustImport(*store, "job-1", "a", std::string(100, 'a'));
  ArtifactRecord b = MustImport(*store, "job-2", "b", std::string(100, 'b'));
  EXPECT_EQ(StoredNames(), (std::vector<std::string>{"a", "b"}));
  ArtifactRecord c = MustImport(*store, "job-1", "c", std::string(100, 'c'));

  EXPECT_EQ(StoredNames(), (std::vector<std::string>{"b", "c"}));
  EXPECT_FALSE(fs::exists(store->PathOf(a)));
  EXPECT_TRUE(fs::exists(store->PathOf(b)));
  EXPECT_TRUE(fs::exists(store->PathOf(c)));
  EXPECT_EQ(jobs_->GetArtifact("job-1", "a").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<int64_t> total = store->TotalBytes();
  ASSERT_TRUE(total.ok());
  EXPECT_EQ(*total, 200);
}

TEST_F(ArtifactStoreTest, ApplyRetentionByBytesReturnsBytesFreed) {
  std::unique_ptr<ArtifactStore> unlimited = MakeStore();
  ArtifactRecord a = MustImport(*unlimited, "job-1", "a", std::string(100, 'a'));
  ArtifactRecord b = MustImport(*unlimited, "job-2", "b", std::string(70, 'b'));
  ArtifactRecord c = MustImport(*unlimited, "job-3", "c", std::string(60, 'c'));

  std::unique_ptr<ArtifactStore> limited = MakeStore(100);
  absl::StatusOr<int64_t> freed = limited->ApplyRetention(c.create_time_ns);
  ASSERT_TRUE(freed.ok()) << freed.status();
  // 230 bytes: dropping a (100) leaves 130, still over; dropping b (70) leaves 60.
  EXPECT_EQ(*freed, 170);
  EXPECT_EQ(StoredNames(), std::vector<std::string>{"c"});
  EXPECT_FALSE(fs::exists(unlimited->PathOf(a)));
  EXPECT_FALSE(fs::exists(unlimited->PathOf(b)));
  // An emptied job directory goes with its last artifact.
  EXPECT_FALSE(fs::exists(fs::path(data_dir_) / "artifacts" / "job-1"));
  EXPECT_TRUE(fs::exists(unlimited->PathOf(c)));

  absl::StatusOr<int64_t> nothing = limited->ApplyRetention(c.create_time_ns);
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(*nothing, 0);
}

TEST_F(ArtifactStoreTest, ApplyRetentionByAgeEvictsOnlyExpiredArtifacts) {
  std::unique_ptr<ArtifactStore> unlimited = MakeStore();
  ArtifactRecord old_one = MustImport(*unlimited, "job-1", "old", std::string(10, 'o'));
  ArtifactRecord new_one = MustImport(*unlimited, "job-1", "new", std::string(20, 'n'));
  ASSERT_LT(old_one.create_time_ns, new_one.create_time_ns);

  constexpr int64_t kMaxAgeSeconds = 10;
  std::unique_ptr<ArtifactStore> limited = MakeStore(0, kMaxAgeSeconds);
  // Exactly at the limit nothing has expired yet.
  absl::StatusOr<int64_t> none =
      limited->ApplyRetention(old_one.create_time_ns + kMaxAgeSeconds * kNsPerSecond);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, 0);

  // One ns later the old artifact has expired and the new one (younger) has not.
  absl::StatusOr<int64_t> freed =
      limited->ApplyRetention(old_one.create_time_ns + kMaxAgeSeconds * kNsPerSecond + 1);
  ASSERT_TRUE(freed.ok()) << freed.status();
  EXPECT_EQ(*freed, 10);
  EXPECT_EQ(StoredNames(), std::vector<std::string>{"new"});
  EXPECT_FALSE(fs::exists(unlimited->PathOf(old_one)));
  EXPECT_TRUE(fs::exists(unlimited->PathOf(new_one)));

  absl::StatusOr<int64_t> rest =
      limited->ApplyRetention(new_one.create_time_ns + kMaxAgeSeconds * kNsPerSecond + 1);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(*rest, 20);
  EXPECT_TRUE(StoredNames().empty());
}

TEST_F(ArtifactStoreTest, ConcurrentImportsKeepTheTotalWithinTheLimit) {
  constexpr int64_t kLimit = 1000;
  std::unique_ptr<ArtifactStore> store = MakeStore(kLimit);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 10;
  std::vector<std::thread> threads;
  std::vector<absl::Status> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string name = absl::StrCat("t", t, "-", i);
        std::string source =
            (fs::path(data_dir_) / "executor-out" / absl::StrCat("src-", name)).string();
        WriteFile(source, std::string(100, 'x'));
        absl::Status status =
            store->Import(absl::StrCat("job-", 1 + t % 3), name, source, "").status();
        if (!status.ok()) errors[t] = status;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& error : errors) EXPECT_TRUE(error.ok()) << error;

  absl::StatusOr<std::vector<ArtifactRecord>> all = jobs_->AllArtifacts();
  ASSERT_TRUE(all.ok());
  int64_t total = 0;
  for (const ArtifactRecord& record : *all) {
    total += record.size_bytes;
    EXPECT_TRUE(fs::exists(store->PathOf(record))) << record.relative_path;
  }
  EXPECT_EQ(total, kLimit);  // 40 imports of 100 bytes, the newest 10 kept
  EXPECT_EQ(all->size(), 10u);
  // Every evicted file is gone too: no orphans, no staging leftovers.
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(data_dir_) / "artifacts")) {
    if (entry.is_regular_file()) ++files;
  }
  EXPECT_EQ(files, 10);
}

}  // namespace
}  // namespace kbench::store
