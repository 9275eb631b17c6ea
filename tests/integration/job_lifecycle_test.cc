// Integration: a job's life through a real kbenchd on the cpu device — submit, watch, get,
// artifacts, listing and paging, idempotency, priorities.

#include <set>

#include "gtest/gtest.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

int LifecycleRank(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_QUEUED:
      return 0;
    case v1::JOB_STATE_RUNNING:
      return 1;
    default:
      return 2;
  }
}

// Ranks never fall and only the last snapshot is terminal.
bool StatesInLifecycleOrder(const std::vector<v1::Job>& seen) {
  for (size_t i = 0; i < seen.size(); ++i) {
    const int rank = LifecycleRank(seen[i].state());
    if (i > 0 && rank < LifecycleRank(seen[i - 1].state())) return false;
    if (rank == 2 && i + 1 != seen.size()) return false;
  }
  return true;
}

std::string StateList(const std::vector<v1::Job>& seen) {
  std::string list;
  for (const v1::Job& j : seen) list += v1::JobState_Name(j.state()) + " ";
  return list;
}

class JobLifecycleTest : public ::testing::Test {
 protected:
  TempDir dir_;
  Daemon daemon_{dir_.path()};
};

TEST_F(JobLifecycleTest, SubmitWatchGetProducesCheckedResultAndArtifact) {
  absl::StatusOr<v1::Job> job = Submit(daemon_.stub(), QuickCpuSpec());
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->state(), v1::JOB_STATE_QUEUED);
  EXPECT_EQ(job->device(), "cpu");

  const std::vector<v1::Job> seen = WatchToEnd(daemon_.stub(), job->id());
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().state(), v1::JOB_STATE_SUCCEEDED) << seen.back().error();
  // The hub polls every 50 ms, so a job that starts and ends within one poll may skip RUNNING;
  // what it guarantees is the order: queued snapshots, then running ones, then one terminal.
  EXPECT_TRUE(StatesInLifecycleOrder(seen)) << StateList(seen);

  grpc::ClientContext ctx;
  v1::GetJobRequest req;
  req.set_job_id(job->id());
  v1::GetJobResponse resp;
  ASSERT_TRUE(daemon_.stub().GetJob(&ctx, req, &resp).ok());
  const v1::Job& done = resp.job();
  ASSERT_EQ(done.result().variants_size(), 1);
  const v1::VariantResult& r = done.result().variants(0);
  EXPECT_TRUE(r.correctness().passed()) << r.correctness().detail();
  EXPECT_GT(r.correctness().elements_checked(), 0);
  EXPECT_GE(r.stats().samples(), 5);
  EXPECT_GT(r.stats().median_seconds(), 0);
  EXPECT_LE(r.stats().min_seconds(), r.stats().median_seconds());
  EXPECT_GT(r.bytes_per_second(), 0);
  EXPECT_EQ(r.bytes(), 2 * 256 * 256 * 4);
  EXPECT_NE(done.result().environment().seed(), 0u);
  // The kbench that measured it, which kbctl repro compares and history keeps.
  EXPECT_EQ(done.result().environment().kbench_version(), KBENCH_TEST_VERSION);
  EXPECT_TRUE(done.has_start_time() && done.has_finish_time());
  EXPECT_EQ(done.attempts(), 1);

  ASSERT_EQ(done.artifacts_size(), 1);
  EXPECT_EQ(done.artifacts(0).name(), "samples.csv");
  // GetArtifact streams the bytes; their sha256 matches the one recorded.
  grpc::ClientContext actx;
  v1::GetArtifactRequest areq;
  areq.set_job_id(job->id());
  areq.set_name("samples.csv");
  auto reader = daemon_.stub().GetArtifact(&actx, areq);
  v1::GetArtifactResponse chunk;
  std::string bytes, sha;
  while (reader->Read(&chunk)) {
    if (chunk.has_info()) sha = chunk.info().sha256();
    EXPECT_EQ(chunk.offset(), static_cast<int64_t>(bytes.size()));
    bytes += chunk.data();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(Sha256Hex(bytes), sha);
  EXPECT_EQ(static_cast<int64_t>(bytes.size()), done.artifacts(0).size_bytes());
  EXPECT_NE(bytes.find("variant,sample,seconds"), std::string::npos);
}

TEST_F(JobLifecycleTest, CompareJobSamplesEveryVariant) {
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_kernel("gelu");
  spec.clear_variants();
  spec.add_variants("tanh_host");
  spec.add_variants("erf_host");
  absl::StatusOr<v1::Job> job = Submit(daemon_.stub(), spec);
  ASSERT_TRUE(job.ok()) << job.status();
  const v1::Job done = WatchToEnd(daemon_.stub(), job->id()).back();
  ASSERT_EQ(done.state(), v1::JOB_STATE_SUCCEEDED) << done.error();
  ASSERT_EQ(done.result().variants_size(), 2);
  for (const auto& v : done.result().variants()) {
    EXPECT_TRUE(v.correctness().passed()) << v.variant() << ": " << v.correctness().detail();
    EXPECT_GE(v.stats().samples(), 5);
  }
  EXPECT_DOUBLE_EQ(done.result().variants(0).speedup_vs_first(), 1.0);
}

TEST_F(JobLifecycleTest, IdempotentSubmitReturnsTheSameJob) {
  absl::StatusOr<v1::Job> first = Submit(daemon_.stub(), QuickCpuSpec(), "retry-key-1");
  ASSERT_TRUE(first.ok()) << first.status();
  grpc::ClientContext ctx;
  v1::SubmitJobRequest req;
  *req.mutable_spec() = QuickCpuSpec();
  req.set_idempotency_key("retry-key-1");
  v1::SubmitJobResponse resp;
  ASSERT_TRUE(daemon_.stub().SubmitJob(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.job().id(), first->id());
  EXPECT_TRUE(resp.deduplicated());

  v1::JobSpec other = QuickCpuSpec();
  other.clear_shape();
  other.add_shape(128);
  absl::StatusOr<v1::Job> clash = Submit(daemon_.stub(), other, "retry-key-1");
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAlreadyExists);

  grpc::ClientContext lctx;
  v1::ListJobsRequest lreq;
  v1::ListJobsResponse lresp;
  ASSERT_TRUE(daemon_.stub().ListJobs(&lctx, lreq, &lresp).ok());
  EXPECT_EQ(lresp.jobs_size(), 1);
}

TEST_F(JobLifecycleTest, ListJobsPagesNewestFirstWithoutGapsAndFilters) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    v1::JobSpec spec = QuickCpuSpec();
    if (i == 4) spec.set_kernel("add"), spec.set_variants(0, "host_loop");
    absl::StatusOr<v1::Job> job = Submit(daemon_.stub(), spec);
    ASSERT_TRUE(job.ok()) << job.status();
    ids.push_back(job->id());
  }
  std::vector<std::string> listed;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext ctx;
    v1::ListJobsRequest req;
    req.set_page_size(2);
    req.set_page_token(token);
    v1::ListJobsResponse resp;
    ASSERT_TRUE(daemon_.stub().ListJobs(&ctx, req, &resp).ok());
    for (const auto& j : resp.jobs()) listed.push_back(j.id());
    token = resp.next_page_token();
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(listed, std::vector<std::string>(ids.rbegin(), ids.rend()));

  grpc::ClientContext ctx;
  v1::ListJobsRequest req;
  req.set_kernel("add");
  v1::ListJobsResponse resp;
  ASSERT_TRUE(daemon_.stub().ListJobs(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.jobs_size(), 1);
  EXPECT_EQ(resp.jobs(0).id(), ids[4]);

  for (const auto& id : ids)
    WaitFor(daemon_.stub(), id, [](const v1::Job& j) { return IsTerminal(j.state()); });
  grpc::ClientContext sctx;
  v1::ListJobsRequest sreq;
  sreq.set_state(v1::JOB_STATE_SUCCEEDED);
  sreq.set_device("cpu");
  v1::ListJobsResponse sresp;
  ASSERT_TRUE(daemon_.stub().ListJobs(&sctx, sreq, &sresp).ok());
  EXPECT_EQ(sresp.jobs_size(), 5);
}

TEST_F(JobLifecycleTest, HigherPriorityRunsFirstThenSubmissionOrder) {
  absl::StatusOr<v1::Job> blocker = Submit(daemon_.stub(), LongCpuSpec(30));
  ASSERT_TRUE(blocker.ok());
  WaitFor(daemon_.stub(), blocker->id(),
          [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });
  v1::JobSpec low = QuickCpuSpec();
  v1::JobSpec high = QuickCpuSpec();
  high.set_priority(10);
  absl::StatusOr<v1::Job> low1 = Submit(daemon_.stub(), low);
  absl::StatusOr<v1::Job> low2 = Submit(daemon_.stub(), low);
  absl::StatusOr<v1::Job> hi = Submit(daemon_.stub(), high);
  ASSERT_TRUE(low1.ok() && low2.ok() && hi.ok());
  grpc::ClientContext ctx;
  v1::CancelJobRequest creq;
  creq.set_job_id(blocker->id());
  v1::CancelJobResponse cresp;
  ASSERT_TRUE(daemon_.stub().CancelJob(&ctx, creq, &cresp).ok());
  const auto done = [](const v1::Job& j) { return IsTerminal(j.state()); };
  const v1::Job a = WaitFor(daemon_.stub(), low1->id(), done);
  const v1::Job b = WaitFor(daemon_.stub(), low2->id(), done);
  const v1::Job c = WaitFor(daemon_.stub(), hi->id(), done);
  // A job that never started has no start time to compare: each must have run.
  for (const v1::Job& j : {a, b, c}) {
    ASSERT_EQ(j.state(), v1::JOB_STATE_SUCCEEDED) << j.id() << ": " << j.error();
  }
  const auto start = [](const v1::Job& j) {
    return j.start_time().seconds() * 1000000000LL + j.start_time().nanos();
  };
  EXPECT_LT(start(c), start(a));
  EXPECT_LT(start(a), start(b));
}

TEST_F(JobLifecycleTest, WatchSeesProgressBeforeTheTerminalState) {
  // Samples for about 2 s: the executor reports progress while it measures.
  absl::StatusOr<v1::Job> job = Submit(daemon_.stub(), LongCpuSpec(2));
  ASSERT_TRUE(job.ok()) << job.status();
  const std::vector<v1::Job> seen = WatchToEnd(daemon_.stub(), job->id());
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().state(), v1::JOB_STATE_SUCCEEDED) << seen.back().error();
  bool progress_before_end = false;
  for (size_t i = 0; i + 1 < seen.size(); ++i) {
    const v1::Job& j = seen[i];
    if (j.state() == v1::JOB_STATE_RUNNING && !j.progress().phase().empty() &&
        j.progress().samples() > 0 && j.progress().noise() > 0) {
      progress_before_end = true;
    }
  }
  EXPECT_TRUE(progress_before_end)
      << "no running snapshot with phase, samples and noise among " << seen.size() << " snapshots";
}

}  // namespace
}  // namespace kbench::testing
