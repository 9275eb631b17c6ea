// Users' kernel code kept once (issue 24), on both engines: ten jobs of one large kernel store
// its code once and read it back whole; a blob goes with the last job or variant that refers
// to it; an owner is charged for a blob once; small kernels stay inline.
#include "server/store/code_blobs.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "kbench/v1/types.pb.h"
#include "kbench/v1/userkernels.pb.h"
#include "server/store/job_store.h"
#include "server/store/stored_bytes.h"
#include "server/store/variant_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

// Code of `bytes` bytes that differs by `seed`, with NULs and high bytes (a cubin's).
std::string CodeOf(int64_t bytes, char seed) {
  std::string code(static_cast<size_t>(bytes), '\0');
  for (size_t i = 0; i < code.size(); i += 997) code[i] = static_cast<char>(seed + i % 251);
  code[0] = '\xff';
  return code;
}

v1::UserKernel KernelOf(const std::string& name, const std::string& code) {
  v1::UserKernel kernel;
  kernel.set_name(name);
  kernel.set_form(v1::USER_KERNEL_FORM_CUBIN);
  kernel.set_code(code);
  kernel.set_entry("softmax_kernel");
  return kernel;
}

JobRecord JobRunning(const std::string& id, const std::string& owner,
                     const std::vector<std::string>& codes) {
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.set_owner(owner);
  for (size_t i = 0; i < codes.size(); ++i) {
    *spec.add_user_kernels() = KernelOf(absl::StrCat("@k", i), codes[i]);
    spec.add_variants(absl::StrCat("@k", i));
  }
  JobRecord job;
  job.id = id;
  job.owner = owner;
  job.device = "cuda:0";
  job.kernel = "softmax";
  job.create_time_ns = 1;
  job.spec = spec.SerializeAsString();
  return job;
}

VariantRecord VariantOf(const std::string& name, const std::string& owner,
                        const std::string& code) {
  VariantRecord r;
  r.operation = "softmax";
  r.name = name;
  r.owner = owner;
  r.form = "cubin";
  r.sha256 = internal::CodeBlobs::Sha256Hex(code);
  r.code_bytes = static_cast<int64_t>(code.size());
  r.kernel = KernelOf(name, code).SerializeAsString();
  r.create_time_ns = 1;
  return r;
}

class CodeBlobsTest : public testing::StoreEngineTest {
 protected:
  void SetUp() override {
    StoreEngineTest::SetUp();
    if (IsSkipped()) return;
    auto jobs = JobStore::Open(location_);
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    jobs_ = *std::move(jobs);
    auto variants = VariantStore::Open(location_);
    ASSERT_TRUE(variants.ok()) << variants.status();
    variants_ = *std::move(variants);
    auto stored = StoredBytes::Open(location_);
    ASSERT_TRUE(stored.ok()) << stored.status();
    stored_ = *std::move(stored);
  }

  void InsertFinished(const JobRecord& job) {
    ASSERT_TRUE(jobs_->Insert(job).ok());
    ASSERT_TRUE(jobs_->Finish(job.id, JobState::kSucceeded, absl::StatusCode::kOk, "", "", 2).ok());
  }

  int64_t QueryInt(const std::string& sql) {
    const std::string text = QueryDatabase(sql);
    return text.empty() ? -1 : std::stoll(text);
  }
  int64_t Blobs() { return QueryInt("SELECT COUNT(*) FROM code_blobs"); }
  // What the jobs' rows and the blobs hold, in bytes: what "stored" means here.
  int64_t StoredSpecAndCodeBytes() {
    return QueryInt("SELECT SUM(length(spec)) FROM jobs") +
           QueryInt("SELECT COALESCE(SUM(length(code)), 0) FROM code_blobs");
  }

  std::unique_ptr<JobStore> jobs_;
  std::unique_ptr<VariantStore> variants_;
  std::unique_ptr<StoredBytes> stored_;
};

TEST_P(CodeBlobsTest, TenJobsOfOneLargeKernelStoreItsCodeOnceAndReadItBackWhole) {
  const std::string code = CodeOf(kMiB, 'a');
  for (int i = 0; i < 10; ++i) InsertFinished(JobRunning(absl::StrCat("j-", i), "bob", {code}));
  EXPECT_EQ(Blobs(), 1);
  const int64_t stored = StoredSpecAndCodeBytes();
  EXPECT_GE(stored, kMiB);
  EXPECT_LT(stored, kMiB + 64 * 1024) << "ten copies would be " << 10 * kMiB;

  absl::StatusOr<JobRecord> read = jobs_->Get("j-7");
  ASSERT_TRUE(read.ok()) << read.status();
  v1::JobSpec spec;
  ASSERT_TRUE(spec.ParseFromString(read->spec));
  ASSERT_EQ(spec.user_kernels_size(), 1);
  EXPECT_TRUE(spec.user_kernels(0).code() == code) << "the code is filled back in";
  EXPECT_EQ(spec.user_kernels(0).code_sha256(), internal::CodeBlobs::Sha256Hex(code));
  absl::StatusOr<std::vector<JobRecord>> listed = jobs_->List(JobFilter{});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 10u);
  EXPECT_EQ((*listed)[0].spec, read->spec);
}

TEST_P(CodeBlobsTest, SmallKernelsStayInlineAndTheSpecIsStoredAsGiven) {
  const JobRecord job = JobRunning("j-small", "bob", {CodeOf(internal::kInlineCodeBytes, 's')});
  InsertFinished(job);
  EXPECT_EQ(Blobs(), 0);
  EXPECT_EQ(jobs_->Get("j-small")->spec, job.spec);
}

TEST_P(CodeBlobsTest, ABlobGoesWithTheLastJobThatRefersToIt) {
  const std::string shared = CodeOf(64 * 1024, 'a');
  const std::string own = CodeOf(64 * 1024, 'b');
  InsertFinished(JobRunning("j-1", "bob", {shared, own}));
  InsertFinished(JobRunning("j-2", "alice", {shared}));
  EXPECT_EQ(Blobs(), 2);
  ASSERT_TRUE(jobs_->DeleteFinished("j-1", nullptr).ok());
  EXPECT_EQ(Blobs(), 1) << "j-1's own code goes; the shared code stays for j-2";
  v1::JobSpec spec;
  ASSERT_TRUE(spec.ParseFromString(jobs_->Get("j-2")->spec));
  EXPECT_TRUE(spec.user_kernels(0).code() == shared);
  // Retention deletes like DeleteJob does.
  ASSERT_TRUE(jobs_->PruneFinishedBefore(3, nullptr).ok());
  EXPECT_EQ(Blobs(), 0);
}

TEST_P(CodeBlobsTest, AVariantAndTheJobsThatRunItShareOneBlob) {
  const std::string code = CodeOf(kMiB, 'v');
  ASSERT_TRUE(variants_->Add(VariantOf("@big", "alice", code)).ok());
  InsertFinished(JobRunning("j-1", "bob", {code}));
  EXPECT_EQ(Blobs(), 1);
  EXPECT_LT(QueryInt("SELECT length(kernel) FROM user_variants"), 1024);
  absl::StatusOr<std::optional<VariantRecord>> got = variants_->Get("softmax", "@big");
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status();
  v1::UserKernel kernel;
  ASSERT_TRUE(kernel.ParseFromString((*got)->kernel));
  EXPECT_TRUE(kernel.code() == code) << "the variant's code is filled back in";

  ASSERT_TRUE(*variants_->Remove("softmax", "@big"));
  EXPECT_EQ(Blobs(), 1) << "job j-1 still runs that code";
  ASSERT_TRUE(jobs_->DeleteFinished("j-1", nullptr).ok());
  EXPECT_EQ(Blobs(), 0);
}

TEST_P(CodeBlobsTest, ARefusedVariantNameKeepsNoBlob) {
  ASSERT_TRUE(variants_->Add(VariantOf("@big", "alice", CodeOf(kMiB, 'x'))).ok());
  EXPECT_EQ(variants_->Add(VariantOf("@big", "alice", CodeOf(kMiB, 'y'))).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Blobs(), 1);
}

TEST_P(CodeBlobsTest, AnOwnerIsChargedForABlobOnce) {
  const std::string code = CodeOf(kMiB, 'q');
  ASSERT_TRUE(variants_->Add(VariantOf("@big", "alice", code)).ok());
  for (int i = 0; i < 10; ++i) InsertFinished(JobRunning(absl::StrCat("j-", i), "bob", {code}));
  absl::StatusOr<OwnerStoredBytes> bob = stored_->OwnedBy("bob");
  ASSERT_TRUE(bob.ok()) << bob.status();
  EXPECT_EQ(bob->code, kMiB);
  EXPECT_LT(bob->total(), kMiB + 64 * 1024) << "ten jobs of one 1 MiB kernel";
  absl::StatusOr<OwnerStoredBytes> alice = stored_->OwnedBy("alice");
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->code, kMiB) << "the variant's registrant keeps it too";
  EXPECT_LT(alice->variants, 1024);
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(jobs_->DeleteFinished(absl::StrCat("j-", i), nullptr).ok());
  EXPECT_EQ(stored_->OwnedBy("bob")->total(), 0);
}

KBENCH_STORE_ENGINES(CodeBlobsTest);

}  // namespace
}  // namespace kbench::store
