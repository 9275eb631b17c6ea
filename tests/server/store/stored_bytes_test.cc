// StoredBytes on both engines: an owner's job specs, their jobs' artifacts, registered variants
// and sweeps (spec and report) are counted, nobody else's; removing a finished job frees its
// bytes; a database from before migration 12 has its specs counted by the migration.
#include "server/store/stored_bytes.h"

#include <gtest/gtest.h>

#include "server/store/database.h"
#include "server/store/job_store.h"
#include "server/store/schema.h"
#include "server/store/sweep_store.h"
#include "server/store/variant_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

JobRecord JobOf(const std::string& id, const std::string& owner, size_t spec_bytes) {
  JobRecord job;
  job.id = id;
  job.owner = owner;
  job.device = "cpu";
  job.kernel = "softmax";
  job.create_time_ns = 1;
  // Bytes a text column would mangle: NULs and high bytes.
  job.spec = std::string(spec_bytes, '\0');
  if (spec_bytes > 0) job.spec[0] = '\xff';
  return job;
}

ArtifactRecord ArtifactOf(const std::string& job_id, const std::string& name, int64_t bytes) {
  ArtifactRecord a;
  a.job_id = job_id;
  a.name = name;
  a.relative_path = job_id + "/" + name;
  a.content_type = "application/octet-stream";
  a.size_bytes = bytes;
  a.sha256 = std::string(64, 'a');
  a.create_time_ns = 2;
  return a;
}

class StoredBytesTest : public testing::StoreEngineTest {
 protected:
  // Opens the job store (which migrates) and the count.
  void Open() {
    auto jobs = JobStore::Open(location_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    auto stored = StoredBytes::Open(location_);
    ASSERT_TRUE(stored.ok()) << stored.status();
    stored_ = *std::move(stored);
  }

  OwnerStoredBytes OwnedBy(const std::string& owner) {
    absl::StatusOr<OwnerStoredBytes> bytes = stored_->OwnedBy(owner);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    return bytes.ok() ? *bytes : OwnerStoredBytes{};
  }

  void Insert(const JobRecord& job) { ASSERT_TRUE(jobs_->Insert(job).ok()); }

  std::unique_ptr<JobStore> jobs_;
  std::unique_ptr<StoredBytes> stored_;
};

TEST_P(StoredBytesTest, AnOwnerWhoKeepsNothingHasZeroBytes) {
  Open();
  const OwnerStoredBytes none = OwnedBy("nobody");
  EXPECT_EQ(none.total(), 0);
}

TEST_P(StoredBytesTest, CountsAnOwnersSpecsArtifactsVariantsAndSweepsAndNobodyElses) {
  Open();
  Insert(JobOf("j-1", "bob", 1000));
  Insert(JobOf("j-2", "bob", 234));
  Insert(JobOf("j-3", "alice", 5000));
  ASSERT_TRUE(jobs_->AddArtifact(ArtifactOf("j-1", "trace.json", 70)).ok());
  ASSERT_TRUE(jobs_->AddArtifact(ArtifactOf("j-3", "trace.json", 9000)).ok());

  auto variants = VariantStore::Open(location_);
  ASSERT_TRUE(variants.ok()) << variants.status();
  VariantRecord variant;
  variant.operation = "softmax";
  variant.name = "@mine";
  variant.owner = "bob";
  variant.form = "cuda";
  variant.sha256 = std::string(64, 'b');
  variant.kernel = std::string(300, '\0');
  variant.code_bytes = 280;
  ASSERT_TRUE((*variants)->Add(variant).ok());

  auto sweeps = SweepStore::Open(location_);
  ASSERT_TRUE(sweeps.ok()) << sweeps.status();
  SweepRecord sweep;
  sweep.id = "s-1";
  sweep.owner = "bob";
  sweep.spec = std::string(40, 's');
  sweep.points = {{0, "j-2", "p0"}};
  ASSERT_TRUE((*sweeps)->Insert(sweep).ok());
  ArtifactRecord report = ArtifactOf("s-1", "report.html", 6);
  ASSERT_TRUE((*sweeps)->AddArtifact(report).ok());

  const OwnerStoredBytes bob = OwnedBy("bob");
  EXPECT_EQ(bob.job_specs, 1234);
  EXPECT_EQ(bob.artifacts, 70);
  EXPECT_EQ(bob.variants, 300);
  EXPECT_EQ(bob.sweeps, 46);
  EXPECT_EQ(bob.total(), 1234 + 70 + 300 + 46);
  const OwnerStoredBytes alice = OwnedBy("alice");
  EXPECT_EQ(alice.job_specs, 5000);
  EXPECT_EQ(alice.artifacts, 9000);
  EXPECT_EQ(alice.variants + alice.sweeps, 0);
}

TEST_P(StoredBytesTest, RemovingAFinishedJobFreesItsSpecAndArtifacts) {
  Open();
  Insert(JobOf("j-1", "bob", 1000));
  Insert(JobOf("j-2", "bob", 500));
  ASSERT_TRUE(jobs_->AddArtifact(ArtifactOf("j-1", "trace.json", 70)).ok());
  ASSERT_TRUE(jobs_->Finish("j-1", JobState::kSucceeded, absl::StatusCode::kOk, "", "", 3).ok());
  ASSERT_TRUE(jobs_->DeleteFinished("j-1", nullptr).ok());
  const OwnerStoredBytes bob = OwnedBy("bob");
  EXPECT_EQ(bob.job_specs, 500);
  EXPECT_EQ(bob.artifacts, 0);
}

TEST_P(StoredBytesTest, MigrationElevenCountsTheSpecsStoredBeforeIt) {
  {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(internal::Migrate(db->get(), 10, 0).ok());
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO jobs (id, state, device, kernel, kind, priority, "
                           "create_time_ns, spec, owner) VALUES ('old', 'succeeded', 'cpu', "
                           "'softmax', 'benchmark', 0, 1, 'a spec of 21 bytes...', 'bob')",
                           "insert a job at version 10")
                    .ok());
  }
  Open();
  EXPECT_EQ(OwnedBy("bob").job_specs, 21);
}

KBENCH_STORE_ENGINES(StoredBytesTest);

}  // namespace
}  // namespace kbench::store
