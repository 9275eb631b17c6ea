// Artifact bytes as chunked rows (a fleet's artifacts), on both engines: a multi-chunk round trip
// through ArtifactStore, altered or missing rows refused as DATA_LOSS, eviction and pruning
// removing the rows.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

class ArtifactChunksTest : public testing::StoreEngineTest {
 protected:
  void SetUp() override {
    testing::StoreEngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    absl::StatusOr<std::unique_ptr<JobStore>> jobs = JobStore::Open(location_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    JobRecord job;
    job.id = "j-1";
    job.device = "cpu";
    job.kernel = "square";
    job.spec = "spec";
    ASSERT_TRUE(jobs_->Insert(job).ok());
  }

  std::unique_ptr<ArtifactStore> Store(int64_t max_total_bytes = 0) {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    EXPECT_TRUE(db.ok()) << db.status();
    return std::make_unique<ArtifactStore>(data_dir_, jobs_.get(),
                                           RetentionPolicy{max_total_bytes, 0},
                                           std::make_unique<ArtifactChunks>(*std::move(db)));
  }

  static std::string RandomBytes(size_t n) {
    std::mt19937 rng(7);
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    return bytes;
  }

  // Everything a reader gives until its end, or its error.
  static absl::StatusOr<std::string> ReadAll(ArtifactReader& reader) {
    std::string all;
    while (true) {
      KBENCH_ASSIGN_OR_RETURN(std::string part, reader.Read(64 * 1024));
      if (part.empty()) return all;
      all += part;
    }
  }

  std::unique_ptr<JobStore> jobs_;
};

TEST_P(ArtifactChunksTest, AMultiChunkArtifactRoundTripsByteForByte) {
  std::unique_ptr<ArtifactStore> store = Store();
  const std::string bytes = RandomBytes(ArtifactChunks::kChunkBytes * 5 / 2);
  const std::string source = WriteFile(std::filesystem::path(data_dir_) / "out.bin", bytes);
  absl::StatusOr<ArtifactRecord> record = store->Import("j-1", "trace.bin", source, "");
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->size_bytes, static_cast<int64_t>(bytes.size()));
  EXPECT_EQ(record->sha256,
            *Sha256OfFile(WriteFile(std::filesystem::path(data_dir_) / "copy", bytes)));
  EXPECT_FALSE(std::filesystem::exists(source));  // the bytes moved into the database
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM artifact_chunks WHERE job_id = 'j-1'"), "3");
  absl::StatusOr<std::unique_ptr<ArtifactReader>> reader = store->Open(*record);
  ASSERT_TRUE(reader.ok()) << reader.status();
  absl::StatusOr<std::string> read = ReadAll(**reader);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(*read == bytes);
}

TEST_P(ArtifactChunksTest, AlteredOrMissingRowsAreDataLoss) {
  std::unique_ptr<ArtifactStore> store = Store();
  const std::string bytes = RandomBytes(ArtifactChunks::kChunkBytes + 100);
  absl::StatusOr<ArtifactRecord> record =
      store->Import("j-1", "a.bin", WriteFile(std::filesystem::path(data_dir_) / "a", bytes), "");
  ASSERT_TRUE(record.ok()) << record.status();

  ArtifactRecord wrong_sha = *record;
  wrong_sha.sha256[0] = wrong_sha.sha256[0] == '0' ? '1' : '0';
  absl::StatusOr<std::string> read = ReadAll(**store->Open(wrong_sha));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << read.status();

  ArtifactRecord longer = *record;
  longer.size_bytes += 1;
  read = ReadAll(**store->Open(longer));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << read.status();

  ArtifactRecord shorter = *record;
  shorter.size_bytes -= 1;
  read = ReadAll(**store->Open(shorter));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << read.status();
}

TEST_P(ArtifactChunksTest, EvictionAndPruningRemoveTheRows) {
  std::unique_ptr<ArtifactStore> store = Store(/*max_total_bytes=*/150);
  ASSERT_TRUE(store
                  ->Import("j-1", "old",
                           WriteFile(std::filesystem::path(data_dir_) / "1", RandomBytes(100)), "")
                  .ok());
  ASSERT_TRUE(store
                  ->Import("j-1", "new",
                           WriteFile(std::filesystem::path(data_dir_) / "2", RandomBytes(100)), "")
                  .ok());
  // Over 150 bytes: the older artifact went, rows and record.
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM artifact_chunks WHERE name = 'old'"), "0");
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM artifact_chunks WHERE name = 'new'"), "1");

  ASSERT_TRUE(jobs_->Finish("j-1", JobState::kSucceeded, absl::StatusCode::kOk, "", "", 10).ok());
  absl::StatusOr<int64_t> pruned = store->PruneJobsFinishedBefore(20);
  ASSERT_TRUE(pruned.ok()) << pruned.status();
  EXPECT_EQ(*pruned, 1);
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM artifact_chunks"), "0");
}

KBENCH_STORE_ENGINES(ArtifactChunksTest);

}  // namespace
}  // namespace kbench::store
