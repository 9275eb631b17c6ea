// Tests of the JobStore on both engines (SQLite, PostgreSQL): schema, durability across reopen,
// idempotent insert, state transitions, listing and paging, artifacts' records, concurrency.
#include "server/store/job_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

using ::testing::HasSubstr;

class JobStoreTest : public testing::StoreEngineTest {
 protected:
  std::unique_ptr<JobStore> OpenStore() {
    absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(location_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  static JobRecord NewJob(const std::string& id, const std::string& kernel = "softmax",
                          const std::string& device = "cpu", const std::string& key = "") {
    JobRecord job;
    job.id = id;
    job.device = device;
    job.kernel = kernel;
    job.kind = JobKind::kBenchmark;
    job.priority = 3;
    job.idempotency_key = key;
    job.create_time_ns = 1'700'000'000'000'000'000;
    // Serialized protos contain NUL bytes: the blob must round-trip them.
    job.spec = std::string("spec\0with\0nuls-", 15) + id;
    return job;
  }

  // Inserts and returns the stored record (seq assigned).
  static JobRecord MustInsert(JobStore& store, const JobRecord& job) {
    absl::StatusOr<std::pair<JobRecord, bool>> inserted = store.Insert(job);
    EXPECT_TRUE(inserted.ok()) << inserted.status();
    EXPECT_TRUE(inserted.ok() && inserted->second) << "job " << job.id << " was not inserted";
    return inserted.ok() ? inserted->first : JobRecord{};
  }

  // Spelled out rather than designated initializers, which -Wextra flags when partial.
  static JobFilter Filter(std::optional<JobState> state, std::string kernel, std::string device,
                          int64_t before_seq = 0, int32_t limit = 50) {
    JobFilter filter;
    filter.state = state;
    filter.kernel = std::move(kernel);
    filter.device = std::move(device);
    filter.before_seq = before_seq;
    filter.limit = limit;
    return filter;
  }

  static std::vector<std::string> Ids(const std::vector<JobRecord>& jobs) {
    std::vector<std::string> ids;
    for (const JobRecord& job : jobs) ids.push_back(job.id);
    return ids;
  }
};

TEST_P(JobStoreTest, RecordsSchemaVersionOnOpen) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<int> version = store->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, JobStore::kSchemaVersion);
  EXPECT_EQ(QueryDatabase("SELECT MAX(version) FROM schema_version"),
            absl::StrCat(JobStore::kSchemaVersion));
}

TEST_P(JobStoreTest, UsesWriteAheadLogging) {
  if (postgres()) GTEST_SKIP() << "a SQLite setting: PostgreSQL always logs ahead";
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  // journal_mode=WAL is persistent in the file, so a fresh connection sees it.
  EXPECT_EQ(QueryDatabase("PRAGMA journal_mode"), "wal");
}

TEST_P(JobStoreTest, ReopenAppliesNoMigrationTwice) {
  OpenStore().reset();
  std::unique_ptr<JobStore> reopened = OpenStore();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM schema_version"),
            absl::StrCat(JobStore::kSchemaVersion));
}

TEST_P(JobStoreTest, RefusesDatabaseWithNewerSchema) {
  OpenStore().reset();
  QueryDatabase("INSERT INTO schema_version (version, applied_time_ns) VALUES (99, 0)");
  absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(location_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(store.status().message()), HasSubstr("schema version 99"));
}

TEST_P(JobStoreTest, ReopenKeepsJobsAndTheirFields) {
  JobRecord queued;
  JobRecord finished;
  {
    std::unique_ptr<JobStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    queued = MustInsert(*store, NewJob("job-a", "gelu", "cuda:0", "key-a"));
    finished = MustInsert(*store, NewJob("job-b"));
    ASSERT_TRUE(store->MarkRunning("job-b", 111).ok());
    ASSERT_TRUE(store
                    ->Finish("job-b", JobState::kFailed, absl::StatusCode::kResourceExhausted,
                             "too big", std::string("res\0ult", 7), 222)
                    .ok());
  }  // the store is destroyed, as in a daemon restart
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);

  absl::StatusOr<JobRecord> a = store->Get("job-a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->seq, queued.seq);
  EXPECT_EQ(a->state, JobState::kQueued);
  EXPECT_EQ(a->device, "cuda:0");
  EXPECT_EQ(a->kernel, "gelu");
  EXPECT_EQ(a->kind, JobKind::kBenchmark);
  EXPECT_EQ(a->priority, 3);
  EXPECT_EQ(a->idempotency_key, "key-a");
  EXPECT_EQ(a->create_time_ns, 1'700'000'000'000'000'000);
  EXPECT_EQ(a->spec, queued.spec);
  EXPECT_EQ(a->spec.size(), 20u);

  absl::StatusOr<JobRecord> b = store->Get("job-b");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->state, JobState::kFailed);
  EXPECT_EQ(b->attempts, 1);
  EXPECT_EQ(b->start_time_ns, 111);
  EXPECT_EQ(b->finish_time_ns, 222);
  EXPECT_EQ(b->code, absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(b->error, "too big");
  EXPECT_EQ(b->result, std::string("res\0ult", 7));
  EXPECT_EQ(b->idempotency_key, "");

  // Sequence numbers keep growing after a reopen.
  JobRecord c = MustInsert(*store, NewJob("job-c"));
  EXPECT_GT(c.seq, finished.seq);
}

TEST_P(JobStoreTest, InsertAssignsIncreasingSeqAndQueuedState) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  JobRecord first = MustInsert(*store, NewJob("j1"));
  JobRecord second = MustInsert(*store, NewJob("j2"));
  EXPECT_GT(first.seq, 0);
  EXPECT_GT(second.seq, first.seq);
  EXPECT_EQ(second.state, JobState::kQueued);
  EXPECT_EQ(second.attempts, 0);
}

TEST_P(JobStoreTest, InsertWithExistingIdempotencyKeyReturnsExistingJobAndInsertsNothing) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  JobRecord original = MustInsert(*store, NewJob("original", "softmax", "cpu", "retry-key"));

  absl::StatusOr<std::pair<JobRecord, bool>> retried =
      store->Insert(NewJob("retried", "matmul", "cpu", "retry-key"));
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_FALSE(retried->second);
  EXPECT_EQ(retried->first.id, "original");
  EXPECT_EQ(retried->first.seq, original.seq);
  EXPECT_EQ(retried->first.kernel, "softmax");

  EXPECT_EQ(store->Get("retried").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<JobRecord>> all = store->List(JobFilter{});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(Ids(*all), std::vector<std::string>{"original"});
}

// Issue 24: bob submitting first under "k1" must not take alice's key.
TEST_P(JobStoreTest, IdempotencyKeysAreUniquePerOwner) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  JobRecord bobs = NewJob("bobs", "softmax", "cpu", "k1");
  bobs.owner = "bob";
  JobRecord alices = NewJob("alices", "softmax", "cpu", "k1");
  alices.owner = "alice";
  MustInsert(*store, bobs);
  MustInsert(*store, alices);

  JobRecord alices_retry = NewJob("alices-retry", "softmax", "cpu", "k1");
  alices_retry.owner = "alice";
  absl::StatusOr<std::pair<JobRecord, bool>> retried = store->Insert(alices_retry);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_FALSE(retried->second);
  EXPECT_EQ(retried->first.id, "alices");
  EXPECT_EQ(retried->first.idempotency_key, "k1");
}

// Migration 10 moves a keyed job's key to its owner's key space: the owner's retry after the
// upgrade still finds it.
TEST_P(JobStoreTest, AKeyUsedBeforeMigrationTenStillDeduplicatesItsOwnersRetry) {
  {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(internal::Migrate(db->get(), 9, 0).ok());
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO jobs (id, state, device, kernel, kind, priority, "
                           "idempotency_key, create_time_ns, spec, owner) VALUES ('old', "
                           "'queued', 'cpu', 'softmax', 'benchmark', 0, 'k1', 1, 'spec', "
                           "'alice')",
                           "insert a keyed job at version 9")
                    .ok());
  }
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  JobRecord retry = NewJob("retry", "softmax", "cpu", "k1");
  retry.owner = "alice";
  absl::StatusOr<std::pair<JobRecord, bool>> retried = store->Insert(retry);
  ASSERT_TRUE(retried.ok()) << retried.status();
  EXPECT_FALSE(retried->second);
  EXPECT_EQ(retried->first.id, "old");
}

// Migration 16 turns each job's status code name into its number: a name that is no code (or
// none) reads as UNKNOWN on a failed job and as OK on any other; the name's column is emptied.
TEST_P(JobStoreTest, ACodeStoredAsItsNameBeforeMigrationSixteenReadsAsItsNumber) {
  ASSERT_NO_FATAL_FAILURE(WriteAtSchemaVersion(
      15,
      "INSERT INTO jobs (id, state, device, kernel, kind, priority, create_time_ns, spec, "
      "error_code) VALUES "
      "('exhausted', 'failed', 'cpu', 'softmax', 'benchmark', 0, 1, 's', 'RESOURCE_EXHAUSTED'), "
      "('unauthenticated', 'failed', 'cpu', 'softmax', 'benchmark', 0, 1, 's', "
      "'UNAUTHENTICATED'), "
      "('cancelled', 'cancelled', 'cpu', 'softmax', 'benchmark', 0, 1, 's', 'CANCELLED'), "
      "('garbled', 'failed', 'cpu', 'softmax', 'benchmark', 0, 1, 's', 'NO_SUCH_CODE'), "
      "('unnamed', 'failed', 'cpu', 'softmax', 'benchmark', 0, 1, 's', ''), "
      "('succeeded', 'succeeded', 'cpu', 'softmax', 'benchmark', 0, 1, 's', 'NO_SUCH_CODE'), "
      "('queued', 'queued', 'cpu', 'softmax', 'benchmark', 0, 1, 's', '')"));
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  const std::vector<std::pair<std::string, absl::StatusCode>> expected = {
      {"exhausted", absl::StatusCode::kResourceExhausted},
      {"unauthenticated", absl::StatusCode::kUnauthenticated},
      {"cancelled", absl::StatusCode::kCancelled},
      {"garbled", absl::StatusCode::kUnknown},
      {"unnamed", absl::StatusCode::kUnknown},
      {"succeeded", absl::StatusCode::kOk},
      {"queued", absl::StatusCode::kOk}};
  for (const auto& [id, code] : expected) {
    absl::StatusOr<JobRecord> job = store->Get(id);
    ASSERT_TRUE(job.ok()) << job.status();
    EXPECT_EQ(job->code, code) << id;
  }
  EXPECT_EQ(QueryDatabase("SELECT status_code FROM jobs WHERE id = 'exhausted'"), "8");
  EXPECT_EQ(QueryDatabase("SELECT COUNT(*) FROM jobs WHERE error_code <> ''"), "0");
}

TEST_P(JobStoreTest, FinishWritesTheCodeAsItsNumber) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(store->MarkRunning("j", 1).ok());
  ASSERT_TRUE(
      store->Finish("j", JobState::kFailed, absl::StatusCode::kDeadlineExceeded, "slow", "", 2)
          .ok());
  EXPECT_EQ(QueryDatabase("SELECT status_code FROM jobs WHERE id = 'j'"), "4");
  EXPECT_EQ(QueryDatabase("SELECT error_code FROM jobs WHERE id = 'j'"), "");
  EXPECT_EQ(store->Get("j")->code, absl::StatusCode::kDeadlineExceeded);
}

TEST_P(JobStoreTest, InsertWithoutIdempotencyKeysNeverCollides) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("x"));
  MustInsert(*store, NewJob("y"));
  absl::StatusOr<std::vector<JobRecord>> all = store->List(JobFilter{});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 2u);
}

TEST_P(JobStoreTest, InsertWithDuplicateIdFailsAlreadyExists) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("dup"));
  absl::StatusOr<std::pair<JobRecord, bool>> again = store->Insert(NewJob("dup"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.status().message()), HasSubstr("dup"));
}

TEST_P(JobStoreTest, InsertRejectsEmptyIdAndNonQueuedState) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Insert(NewJob("")).status().code(), absl::StatusCode::kInvalidArgument);
  JobRecord running = NewJob("r");
  running.state = JobState::kRunning;
  EXPECT_EQ(store->Insert(running).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Get("r").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(JobStoreTest, GetUnknownIdIsNotFoundNamingTheId) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<JobRecord> job = store->Get("no-such-job");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(job.status().message()), HasSubstr("no-such-job"));
}

TEST_P(JobStoreTest, TransitionsOnUnknownIdAreNotFoundNamingTheId) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (const absl::Status& status :
       {store->MarkRunning("ghost", 1), store->Requeue("ghost"),
        store->Finish("ghost", JobState::kCancelled, absl::StatusCode::kCancelled, "", "", 1)}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr("ghost"));
  }
}

TEST_P(JobStoreTest, MarkRunningCountsAttemptsAcrossRequeue) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(store->MarkRunning("j", 1000).ok());
  absl::StatusOr<JobRecord> running = store->Get("j");
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->state, JobState::kRunning);
  EXPECT_EQ(running->attempts, 1);
  EXPECT_EQ(running->start_time_ns, 1000);

  ASSERT_TRUE(store->Requeue("j").ok());
  absl::StatusOr<JobRecord> requeued = store->Get("j");
  ASSERT_TRUE(requeued.ok());
  EXPECT_EQ(requeued->state, JobState::kQueued);
  EXPECT_EQ(requeued->attempts, 1);

  ASSERT_TRUE(store->MarkRunning("j", 2000).ok());
  absl::StatusOr<JobRecord> again = store->Get("j");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->attempts, 2);
  EXPECT_EQ(again->start_time_ns, 2000);
}

TEST_P(JobStoreTest, MarkRunningFailsPreconditionUnlessQueued) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(store->MarkRunning("j", 1).ok());
  absl::Status twice = store->MarkRunning("j", 2);
  EXPECT_EQ(twice.code(), absl::StatusCode::kFailedPrecondition) << twice;
  EXPECT_THAT(std::string(twice.message()), HasSubstr("running"));

  ASSERT_TRUE(store->Finish("j", JobState::kSucceeded, absl::StatusCode::kOk, "", "r", 3).ok());
  absl::Status after_finish = store->MarkRunning("j", 4);
  EXPECT_EQ(after_finish.code(), absl::StatusCode::kFailedPrecondition) << after_finish;
  EXPECT_THAT(std::string(after_finish.message()), HasSubstr("succeeded"));
  // The refused transition changed nothing.
  absl::StatusOr<JobRecord> job = store->Get("j");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, JobState::kSucceeded);
  EXPECT_EQ(job->attempts, 1);
  EXPECT_EQ(job->start_time_ns, 1);
}

TEST_P(JobStoreTest, FinishOnTerminalJobFailsPreconditionAndKeepsTheResult) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(store->MarkRunning("j", 1).ok());
  ASSERT_TRUE(store->Finish("j", JobState::kSucceeded, absl::StatusCode::kOk, "", "first", 2).ok());
  absl::Status again =
      store->Finish("j", JobState::kFailed, absl::StatusCode::kInternal, "late", "second", 3);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  absl::StatusOr<JobRecord> job = store->Get("j");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, JobState::kSucceeded);
  EXPECT_EQ(job->result, "first");
  EXPECT_EQ(job->finish_time_ns, 2);
}

TEST_P(JobStoreTest, FinishCancelsAQueuedJob) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(
      store->Finish("j", JobState::kCancelled, absl::StatusCode::kCancelled, "by user", "", 5)
          .ok());
  absl::StatusOr<JobRecord> job = store->Get("j");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, JobState::kCancelled);
  EXPECT_EQ(job->attempts, 0);
}

TEST_P(JobStoreTest, FinishWithNonTerminalStateIsInvalidArgument) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  EXPECT_EQ(store->Finish("j", JobState::kRunning, absl::StatusCode::kOk, "", "", 1).code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<JobRecord> job = store->Get("j");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, JobState::kQueued);
}

TEST_P(JobStoreTest, RequeueOfTerminalJobFailsPrecondition) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ASSERT_TRUE(store->Finish("j", JobState::kFailed, absl::StatusCode::kInternal, "x", "", 1).ok());
  EXPECT_EQ(store->Requeue("j").code(), absl::StatusCode::kFailedPrecondition);
}

TEST_P(JobStoreTest, ListByStateReturnsOldestFirst) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (const char* id : {"q1", "r1", "q2", "r2", "q3"}) MustInsert(*store, NewJob(id));
  ASSERT_TRUE(store->MarkRunning("r1", 1).ok());
  ASSERT_TRUE(store->MarkRunning("r2", 1).ok());
  absl::StatusOr<std::vector<JobRecord>> queued = store->ListByState(JobState::kQueued);
  ASSERT_TRUE(queued.ok()) << queued.status();
  EXPECT_EQ(Ids(*queued), (std::vector<std::string>{"q1", "q2", "q3"}));
  absl::StatusOr<std::vector<JobRecord>> running = store->ListByState(JobState::kRunning);
  ASSERT_TRUE(running.ok()) << running.status();
  EXPECT_EQ(Ids(*running), (std::vector<std::string>{"r1", "r2"}));
}

TEST_P(JobStoreTest, ListFiltersByStateKernelAndDevice) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("a", "softmax", "cpu"));
  MustInsert(*store, NewJob("b", "matmul", "cpu"));
  MustInsert(*store, NewJob("c", "softmax", "cuda:0"));
  MustInsert(*store, NewJob("d", "softmax", "cpu"));
  ASSERT_TRUE(store->MarkRunning("d", 1).ok());

  auto list = [&](const JobFilter& filter) {
    absl::StatusOr<std::vector<JobRecord>> jobs = store->List(filter);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    return jobs.ok() ? Ids(*jobs) : std::vector<std::string>{};
  };
  using IdList = std::vector<std::string>;
  EXPECT_EQ(list(JobFilter{}), (IdList{"d", "c", "b", "a"}));
  EXPECT_EQ(list(Filter(std::nullopt, "softmax", "")), (IdList{"d", "c", "a"}));
  EXPECT_EQ(list(Filter(std::nullopt, "", "cpu")), (IdList{"d", "b", "a"}));
  EXPECT_EQ(list(Filter(JobState::kQueued, "", "")), (IdList{"c", "b", "a"}));
  EXPECT_EQ(list(Filter(JobState::kRunning, "", "")), (IdList{"d"}));
  EXPECT_EQ(list(Filter(JobState::kQueued, "softmax", "cpu")), (IdList{"a"}));
  EXPECT_EQ(list(Filter(std::nullopt, "copy", "")), IdList{});
}

TEST_P(JobStoreTest, ListFiltersByTargetAndNode) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  // A fleet's job is stored with its target as its device until a node claims it.
  MustInsert(*store, NewJob("any", "softmax", "h100:any"));
  MustInsert(*store, NewJob("local", "softmax", "cuda:0"));
  JobFilter by_target;
  by_target.target = "h100:any";
  absl::StatusOr<std::vector<JobRecord>> jobs = store->List(by_target);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(Ids(*jobs), std::vector<std::string>{"any"});
  JobFilter by_node;
  by_node.node = "gpu-b";
  jobs = store->List(by_node);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->empty()) << "no node claimed either job";
}

TEST_P(JobStoreTest, ListPagesNewestFirstWithoutGapsOrDuplicates) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  std::vector<int64_t> all_seqs;
  std::vector<int64_t> softmax_seqs;
  for (int i = 0; i < 23; ++i) {
    JobRecord job =
        MustInsert(*store, NewJob(absl::StrCat("job-", i), i % 3 == 0 ? "matmul" : "softmax"));
    all_seqs.push_back(job.seq);
    if (job.kernel == "softmax") softmax_seqs.push_back(job.seq);
  }
  std::reverse(all_seqs.begin(), all_seqs.end());
  std::reverse(softmax_seqs.begin(), softmax_seqs.end());

  for (const std::string kernel : {"", "softmax"}) {
    SCOPED_TRACE(absl::StrCat("kernel filter '", kernel, "'"));
    std::vector<int64_t> paged;
    JobFilter filter = Filter(std::nullopt, kernel, "", 0, 5);
    int pages = 0;
    while (true) {
      absl::StatusOr<std::vector<JobRecord>> page = store->List(filter);
      ASSERT_TRUE(page.ok()) << page.status();
      ASSERT_LE(page->size(), 5u);
      if (page->empty()) break;
      ++pages;
      for (const JobRecord& job : *page) paged.push_back(job.seq);
      filter.before_seq = page->back().seq;
      ASSERT_LT(pages, 10) << "paging does not terminate";
    }
    EXPECT_EQ(paged, kernel.empty() ? all_seqs : softmax_seqs);
    EXPECT_EQ(pages, kernel.empty() ? 5 : 3);  // 23 jobs / 5; 15 softmax jobs / 5
  }
}

TEST_P(JobStoreTest, ListRejectsNonPositiveLimitAndNegativeCursor) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::Status zero = store->List(Filter(std::nullopt, "", "", 0, 0)).status();
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero.message()), HasSubstr("limit"));
  absl::Status negative = store->List(Filter(std::nullopt, "", "", -1)).status();
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(negative.message()), HasSubstr("before_seq"));
}

TEST_P(JobStoreTest, ConcurrentInsertsWithSameKeyYieldOneJob) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  constexpr int kThreads = 8;
  std::vector<absl::StatusOr<std::pair<JobRecord, bool>>> results(kThreads,
                                                                  absl::UnknownError("not run"));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      results[t] = store->Insert(NewJob(absl::StrCat("attempt-", t), "softmax", "cpu", "k"));
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();

  int inserted = 0;
  std::set<std::string> ids;
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    inserted += result->second ? 1 : 0;
    ids.insert(result->first.id);
  }
  EXPECT_EQ(inserted, 1);
  EXPECT_EQ(ids.size(), 1u);
  absl::StatusOr<std::vector<JobRecord>> all = store->List(JobFilter{});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

// Two stores on one data directory (two connections): the idempotency check and the insert
// must be one transaction, not merely serialized by one store's mutex.
TEST_P(JobStoreTest, ConcurrentInsertsThroughTwoConnectionsWithSameKeyYieldOneJob) {
  std::unique_ptr<JobStore> first = OpenStore();
  std::unique_ptr<JobStore> second = OpenStore();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    std::string key = absl::StrCat("key-", round);
    absl::StatusOr<std::pair<JobRecord, bool>> a = absl::UnknownError("not run");
    absl::StatusOr<std::pair<JobRecord, bool>> b = absl::UnknownError("not run");
    std::atomic<bool> go{false};
    std::thread ta([&] {
      while (!go.load()) std::this_thread::yield();
      a = first->Insert(NewJob(absl::StrCat("a-", round), "softmax", "cpu", key));
    });
    std::thread tb([&] {
      while (!go.load()) std::this_thread::yield();
      b = second->Insert(NewJob(absl::StrCat("b-", round), "softmax", "cpu", key));
    });
    go = true;
    ta.join();
    tb.join();
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_NE(a->second, b->second) << "round " << round;
    EXPECT_EQ(a->first.id, b->first.id) << "round " << round;
  }
  absl::StatusOr<std::vector<JobRecord>> all = first->List(Filter(std::nullopt, "", "", 0, 1000));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), static_cast<size_t>(kRounds));
}

TEST_P(JobStoreTest, ArtifactRecordsRoundTripAndListOldestFirst) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j1"));
  MustInsert(*store, NewJob("j2"));
  ArtifactRecord trace{.job_id = "j1",
                       .name = "trace.json",
                       .relative_path = "j1/trace.json",
                       .content_type = "application/json",
                       .size_bytes = 10,
                       .sha256 = "ab",
                       .create_time_ns = 300};
  ArtifactRecord report{.job_id = "j2",
                        .name = "r.ncu-rep",
                        .relative_path = "j2/r.ncu-rep",
                        .content_type = "application/octet-stream",
                        .size_bytes = 20,
                        .sha256 = "cd",
                        .create_time_ns = 100};
  ASSERT_TRUE(store->AddArtifact(trace).ok());
  ASSERT_TRUE(store->AddArtifact(report).ok());

  absl::StatusOr<ArtifactRecord> got = store->GetArtifact("j1", "trace.json");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->relative_path, "j1/trace.json");
  EXPECT_EQ(got->content_type, "application/json");
  EXPECT_EQ(got->size_bytes, 10);
  EXPECT_EQ(got->sha256, "ab");
  EXPECT_EQ(got->create_time_ns, 300);

  absl::StatusOr<std::vector<ArtifactRecord>> all = store->AllArtifacts();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "r.ncu-rep");  // older
  EXPECT_EQ((*all)[1].name, "trace.json");

  absl::StatusOr<std::vector<ArtifactRecord>> of_j1 = store->Artifacts("j1");
  ASSERT_TRUE(of_j1.ok());
  ASSERT_EQ(of_j1->size(), 1u);
  EXPECT_EQ((*of_j1)[0].name, "trace.json");

  ASSERT_TRUE(store->DeleteArtifact("j1", "trace.json").ok());
  EXPECT_EQ(store->GetArtifact("j1", "trace.json").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<ArtifactRecord>> none = store->Artifacts("j1");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

TEST_P(JobStoreTest, AddArtifactTwiceReplacesTheRecord) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  MustInsert(*store, NewJob("j"));
  ArtifactRecord artifact{.job_id = "j",
                          .name = "t",
                          .relative_path = "j/t",
                          .content_type = "text/plain",
                          .size_bytes = 1,
                          .sha256 = "old",
                          .create_time_ns = 1};
  ASSERT_TRUE(store->AddArtifact(artifact).ok());
  artifact.size_bytes = 2;
  artifact.sha256 = "new";
  ASSERT_TRUE(store->AddArtifact(artifact).ok());
  absl::StatusOr<std::vector<ArtifactRecord>> all = store->AllArtifacts();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].sha256, "new");
  EXPECT_EQ((*all)[0].size_bytes, 2);
}

TEST_P(JobStoreTest, ArtifactOfUnknownJobIsNotFoundNamingTheJob) {
  std::unique_ptr<JobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  absl::Status added = store->AddArtifact({.job_id = "ghost",
                                           .name = "t",
                                           .relative_path = "ghost/t",
                                           .content_type = "x",
                                           .size_bytes = 1,
                                           .sha256 = "s",
                                           .create_time_ns = 1});
  EXPECT_EQ(added.code(), absl::StatusCode::kNotFound) << added;
  EXPECT_THAT(std::string(added.message()), HasSubstr("ghost"));
  absl::Status listed = store->Artifacts("ghost").status();
  EXPECT_EQ(listed.code(), absl::StatusCode::kNotFound) << listed;
  absl::Status got = store->GetArtifact("ghost", "t").status();
  EXPECT_EQ(got.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(got.message()), HasSubstr("ghost"));
  EXPECT_EQ(store->DeleteArtifact("ghost", "t").code(), absl::StatusCode::kNotFound);
}

KBENCH_STORE_ENGINES(JobStoreTest);

TEST(JobStateName, RoundTripsThroughParseJobState) {
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    absl::StatusOr<JobState> parsed = ParseJobState(JobStateName(state));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, state);
  }
  absl::Status bad = ParseJobState("done").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.message()), HasSubstr("done"));
  EXPECT_TRUE(IsTerminal(JobState::kCancelled));
  EXPECT_FALSE(IsTerminal(JobState::kRunning));
}

}  // namespace
}  // namespace kbench::store
