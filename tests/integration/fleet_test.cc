// Integration: a fleet of kbenchd nodes (--no-cuda, each with its own cpu device) sharing one
// real PostgreSQL: a job for another node's device runs there while the first node watches its
// state and progress; a sweep's points all run on one device; a node killed mid-job loses its job
// to another node after the lease; many jobs to cpu:any spread over three nodes with none lost and
// none ever running on two nodes at once; quotas (jobs queued, bytes stored) count every node's.
#include "tests/integration/fleet.h"

#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"
#include "tests/postgres/postgres_server.h"
#include "tests/server/metrics/exposition.h"
#include "tests/server/metrics/http_get.h"

namespace kbench::testing {
namespace {

// Short, so that the lost-node test waits seconds, not the default 15.
constexpr char kLeaseSeconds[] = "3";

class FleetTest : public ::testing::Test, public TestFleet {
 protected:
  FleetTest() : TestFleet(kLeaseSeconds) {}

  void SetUp() override {
    KBENCH_REQUIRE_POSTGRES();
    ASSERT_FALSE(url_.empty()) << PostgresServer::Shared().reason();
  }

  // Starts node-a and node-b and a two-second job for cpu:any; returns its id and the node
  // running it (empty ids when it did not start).
  std::pair<std::string, std::string> RunALongJobOnOneOfTwoNodes(
      const std::vector<std::string>& extra = {}) {
    Daemon& a = StartNode("node-a", extra);
    StartNode("node-b", extra);
    v1::JobSpec spec = LongCpuSpec(2.0);
    spec.set_device("cpu:any");
    absl::StatusOr<v1::Job> job = Submit(a.stub(), spec);
    EXPECT_TRUE(job.ok()) << job.status();
    if (!job.ok()) return {};
    const v1::Job running = WaitFor(
        a.stub(), job->id(), [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });
    if (running.state() != v1::JOB_STATE_RUNNING) return {};
    return {job->id(), NodeOf(running)};
  }
};

TEST_F(FleetTest, AJobForAnotherNodesCpuRunsThereAndTheFirstNodeWatchesIt) {
  Daemon& a = StartNode("node-a");
  StartNode("node-b");
  // Long enough to be seen running, with progress: node-b shares its progress once a
  // heartbeat (1 s) and node-a's watch polls every 50 ms.
  v1::JobSpec spec = LongCpuSpec(3.0);
  spec.set_device("node-b/cpu");
  absl::StatusOr<v1::Job> job = Submit(a.stub(), spec);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->device(), "node-b/cpu");

  const std::vector<v1::Job> seen = WatchToEnd(a.stub(), job->id());
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().state(), v1::JOB_STATE_SUCCEEDED) << seen.back().error();
  EXPECT_EQ(seen.back().device(), "node-b/cpu");
  bool saw_running = false, saw_progress = false;
  for (const v1::Job& j : seen) {
    if (j.state() != v1::JOB_STATE_RUNNING) continue;
    saw_running = true;
    saw_progress |=
        j.progress().samples() > 0 && j.progress().noise() > 0 && !j.progress().variant().empty();
  }
  EXPECT_TRUE(saw_running) << "node-a's watch followed the run on node-b";
  EXPECT_TRUE(saw_progress) << "node-b's progress reached node-a's watch";

  // Issue 30: a multi-GPU ask in a fleet of cpu-only nodes is refused naming why (gang_target.h).
  v1::JobSpec gang = LongCpuSpec(1.0);
  gang.set_device("");
  gang.set_gpus(2);
  EXPECT_EQ(Submit(a.stub(), gang).status().code(), absl::StatusCode::kFailedPrecondition);
  gang.set_gpus(0);
  gang.add_devices("node-b/cpu");
  gang.add_devices("node-a/cpu");
  absl::Status named = Submit(a.stub(), gang).status();
  EXPECT_EQ(named.code(), absl::StatusCode::kInvalidArgument) << named;
  EXPECT_NE(named.message().find("not one CUDA device"), std::string::npos) << named;

  grpc::ClientContext ctx;
  v1::ListNodesResponse nodes;
  ASSERT_TRUE(a.stub().ListNodes(&ctx, v1::ListNodesRequest(), &nodes).ok());
  ASSERT_EQ(nodes.nodes_size(), 2);
  for (const v1::NodeInfo& n : nodes.nodes()) {
    EXPECT_TRUE(n.alive()) << n.name();
    EXPECT_EQ(n.address(), nodes_[n.name()]->address()) << "the bound port, not --listen's 0";
    ASSERT_EQ(n.devices_size(), 1);
    EXPECT_EQ(n.devices(0).id(), n.name() + "/cpu");
  }

  const std::string table = Kbctl(a, "nodes");
  EXPECT_NE(table.find("node-a"), std::string::npos) << table;
  EXPECT_NE(table.find("node-b/cpu"), std::string::npos) << table;
  EXPECT_EQ(table.find("lost"), std::string::npos) << table;
  const std::string devices = Kbctl(a, "devices");
  EXPECT_NE(devices.find("HEARTBEAT"), std::string::npos) << devices;
  EXPECT_NE(devices.find("node-b/cpu"), std::string::npos) << devices;
  // kbctl takes the fleet's forms of a device: one node's device, any device of a kind.
  for (const std::string target : {"node-b/cpu", "cpu:any"}) {
    const std::string ran = Kbctl(a,
                                  "-o json bench square --variant host_loop --shape 256x256 "
                                  "--min-time 0.01 --max-noise 0.5 --device " +
                                      target);
    EXPECT_NE(ran.find("\"JOB_STATE_SUCCEEDED\""), std::string::npos) << ran;
    if (target == "node-b/cpu") {
      EXPECT_NE(ran.find("\"node-b/cpu\""), std::string::npos) << ran;
    }
  }
  // kbctl jobs filters by a node's device (as jobs show it) and by the target submitted for.
  const std::string on_b = Kbctl(a, "jobs --device node-b/cpu");
  EXPECT_NE(on_b.find(job->id()), std::string::npos) << on_b;
  EXPECT_EQ(on_b.find("node-a/"), std::string::npos) << on_b;
  const std::string any_cpu = Kbctl(a, "-o json jobs --device cpu:any");
  EXPECT_EQ(any_cpu.find(job->id()), std::string::npos) << "submitted for node-b/cpu: " << any_cpu;
  EXPECT_NE(any_cpu.find("\"cpu:any\""), std::string::npos) << any_cpu;

  v1::JobSpec unknown = QuickCpuSpec();
  unknown.set_device("node-z/cpu");
  absl::StatusOr<v1::Job> refused = Submit(a.stub(), unknown);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("node-z/cpu"), std::string::npos) << refused.status();
}

TEST_F(FleetTest, ASweepForCpuAnyRunsEveryPointOnOneDevice) {
  Daemon& a = StartNode("node-a");
  StartNode("node-b");
  // Four points, each free to go to either node were they ordinary cpu:any jobs; a sweep's
  // curve compares its points, so they all go to one device.
  const nlohmann::json doc = nlohmann::json::parse(
      Kbctl(a,
            "-o json sweep gelu --variants tanh_host,erf_host --shape 65536 "
            "--axis dim0=16384:131072:*2 --device cpu:any --min-time 0.01 --max-noise 0.5"));
  ASSERT_EQ(doc["jobs"].size(), 4u) << doc.dump();
  std::set<std::string> devices;
  for (const nlohmann::json& job : doc["jobs"]) {
    EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED") << job.dump();
    devices.insert(job["device"].get<std::string>());
  }
  EXPECT_EQ(devices.size(), 1u) << doc["jobs"].dump();
  EXPECT_TRUE(devices.count("node-a/cpu") + devices.count("node-b/cpu") == 1) << doc.dump();
}

TEST_F(FleetTest, AKilledNodesJobRunsElsewhereAfterTheLease) {
  const auto [job, first] = RunALongJobOnOneOfTwoNodes({"--metrics-listen", "127.0.0.1:0"});
  ASSERT_FALSE(job.empty());
  Daemon& victim = *nodes_[first];
  Daemon& survivor = *nodes_[first == "node-a" ? "node-b" : "node-a"];
  victim.Stop(SIGKILL);

  // A job for the dead node's own device waits for it, and says so.
  v1::JobSpec pinned = QuickCpuSpec();
  pinned.set_device(first + "/cpu");
  absl::StatusOr<v1::Job> waiting = Submit(survivor.stub(), pinned);
  ASSERT_TRUE(waiting.ok()) << waiting.status().ToString();

  const v1::Job done =
      WaitFor(survivor.stub(), job, [](const v1::Job& j) { return IsTerminal(j.state()); });
  EXPECT_EQ(done.state(), v1::JOB_STATE_SUCCEEDED) << done.error();
  EXPECT_NE(NodeOf(done), first) << done.device();
  EXPECT_EQ(done.attempts(), 2);

  const v1::Job still = WaitFor(
      survivor.stub(), waiting->id(),
      [](const v1::Job& j) { return !j.queue_place().waiting_for().empty(); },
      std::chrono::seconds(10));
  EXPECT_EQ(still.state(), v1::JOB_STATE_QUEUED);
  EXPECT_NE(still.queue_place().waiting_for().find(first), std::string::npos)
      << still.queue_place().DebugString();

  // Issue 28: the survivor's /metrics shows the lost node and the job it took over.
  std::string scraped;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<HttpResponse> scrape = HttpGet(survivor.metrics_address(), "/metrics");
    ASSERT_TRUE(scrape.ok()) << scrape.status();
    scraped = scrape->body;
    if (FindSample(scraped, "kbench_fleet_node_alive", {{"node", first}}) ==
        std::optional<double>(0.0)) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(FindSample(scraped, "kbench_fleet_node_alive", {{"node", first}}),
            std::optional<double>(0.0))
      << scraped;
  EXPECT_GT(
      FindSample(scraped, "kbench_fleet_heartbeat_age_seconds", {{"node", first}}).value_or(0), 0)
      << scraped;
  EXPECT_GE(FindSample(scraped, "kbench_fleet_lease_takeovers_total", {}).value_or(0), 1)
      << scraped;
}

TEST_F(FleetTest, ASigtermedNodesRunningJobGoesBackToTheSharedQueueAtOnce) {
  const auto [job, first] = RunALongJobOnOneOfTwoNodes();
  ASSERT_FALSE(job.empty());
  Daemon& other = *nodes_[first == "node-a" ? "node-b" : "node-a"];
  const int status = nodes_[first]->Stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;

  // Released by the stop itself (a killed node's job waits for its lease): unclaimed now, or
  // claimed already by the other node.
  const auto rows = Query("SELECT state, node FROM jobs WHERE id = '" + job + "'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0][1], first) << rows[0][0];
  const v1::Job done =
      WaitFor(other.stub(), job, [](const v1::Job& j) { return IsTerminal(j.state()); });
  EXPECT_EQ(done.state(), v1::JOB_STATE_SUCCEEDED) << done.error();
  EXPECT_NE(NodeOf(done), first) << done.device();
  EXPECT_EQ(done.attempts(), 2);
}

TEST_F(FleetTest, QuotasCountTheWholeFleetAndCancelsReachTheNodeRunningTheJob) {
  Daemon& a = StartNode("node-a", {"--default-max-queued-jobs", "3"});
  Daemon& b = StartNode("node-b", {"--default-max-queued-jobs", "3"});
  v1::JobSpec spec = LongCpuSpec(30.0);
  spec.set_device("node-a/cpu");
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<v1::Job> job = Submit(a.stub(), spec);
    ASSERT_TRUE(job.ok()) << job.status();
    ids.push_back(job->id());
  }
  // The owner's three jobs are all on node-a; node-b counts them too.
  absl::StatusOr<v1::Job> fourth = Submit(b.stub(), spec);
  EXPECT_EQ(fourth.status().code(), absl::StatusCode::kResourceExhausted) << fourth.status();

  WaitFor(b.stub(), ids[0], [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });
  // Through node-b: the running job (node-a stops it) and the two still unclaimed.
  for (const std::string& id : ids) {
    grpc::ClientContext ctx;
    v1::CancelJobRequest request;
    request.set_job_id(id);
    v1::CancelJobResponse response;
    const grpc::Status s = b.stub().CancelJob(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << id << ": " << s.error_message();
  }
  for (const std::string& id : ids) {
    const v1::Job done = WaitFor(
        b.stub(), id, [](const v1::Job& j) { return IsTerminal(j.state()); },
        std::chrono::seconds(20));
    EXPECT_EQ(done.state(), v1::JOB_STATE_CANCELLED) << id << " " << done.error();
  }
}

TEST_F(FleetTest, StoredBytesCountTheWholeFleet) {
  const std::vector<std::string> bound = {"--default-max-stored-bytes", "2500000"};
  Daemon& a = StartNode("node-a", bound);
  Daemon& b = StartNode("node-b", bound);
  // 900 kB of CUDA source, different in each job (the store keeps one code once, and counts it
  // once): two such jobs fit under the bound, a third does not.
  auto spec_numbered = [](int n) {
    std::string source = "extern \"C\" __global__ void sq(float* y) { y[threadIdx.x] = 1; }\n";
    source += absl::StrCat("// source ", n, "\n");
    source.resize(900'000, ' ');
    v1::JobSpec spec = CompileSpec("square", v1::USER_KERNEL_FORM_CUDA, source, "sq");
    spec.set_device("node-a/cpu");
    return spec;
  };
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<v1::Job> job = Submit(a.stub(), spec_numbered(i));
    ASSERT_TRUE(job.ok()) << job.status();
  }
  // Both specs are node-a's submits; node-b counts them too.
  absl::StatusOr<v1::Job> third = Submit(b.stub(), spec_numbered(2));
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted) << third.status();
  EXPECT_NE(third.status().message().find("max_stored_bytes"), std::string::npos) << third.status();
}

TEST_F(FleetTest, AnyNodeServesAnArtifactEvenAfterItsProducerDied) {
  Daemon& a = StartNode("node-a");
  Daemon& b = StartNode("node-b");
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_device("node-b/cpu");
  absl::StatusOr<v1::Job> job = Submit(a.stub(), spec);
  ASSERT_TRUE(job.ok()) << job.status();
  const v1::Job done =
      WaitFor(a.stub(), job->id(), [](const v1::Job& j) { return IsTerminal(j.state()); });
  ASSERT_EQ(done.state(), v1::JOB_STATE_SUCCEEDED) << done.error();
  ASSERT_GT(done.artifacts_size(), 0);
  const v1::ArtifactInfo recorded = done.artifacts(0);
  b.Stop(SIGKILL);

  absl::StatusOr<ArtifactRead> read = ReadArtifact(a.stub(), job->id(), recorded.name());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(static_cast<int64_t>(read->bytes.size()), recorded.size_bytes());
  EXPECT_EQ(Sha256Hex(read->bytes), recorded.sha256());
  EXPECT_EQ(read->info.sha256(), recorded.sha256());
  EXPECT_EQ(Query("SELECT relative_path FROM artifacts WHERE job_id = '" + job->id() + "'")[0][0],
            "");  // the bytes are rows, not a file on node-b

  // Altered rows never reach a user as the artifact.
  Query("UPDATE artifact_chunks SET data = data || '\\x00'::bytea WHERE job_id = '" + job->id() +
        "' RETURNING idx");
  absl::StatusOr<ArtifactRead> tampered = ReadArtifact(a.stub(), job->id(), recorded.name());
  EXPECT_EQ(tampered.status().code(), absl::StatusCode::kDataLoss) << tampered.status();
}

TEST_F(FleetTest, ManyJobsToCpuAnySpreadOverThreeNodesNoneLostNoneRunTwice) {
  constexpr int kJobs = 1000;
  const std::vector<std::string>& quotas = QuotasOutOfTheWay();
  std::vector<Daemon*> nodes = {&StartNode("node-a", quotas), &StartNode("node-b", quotas),
                                &StartNode("node-c", quotas)};
  v1::JobSpec spec = QuickCpuSpec();
  spec.set_device("cpu:any");
  spec.mutable_stopping()->set_min_samples(3);
  spec.mutable_stopping()->set_min_time_seconds(0.001);
  std::vector<std::string> ids(kJobs);
  std::vector<std::thread> submitters;
  std::atomic<int> refused{0};
  for (int t = 0; t < 3; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = t; i < kJobs; i += 3) {
        absl::StatusOr<v1::Job> job = Submit(nodes[t]->stub(), spec);
        if (job.ok())
          ids[i] = job->id();
        else
          ++refused;
      }
    });
  }
  for (std::thread& s : submitters) s.join();
  ASSERT_EQ(refused.load(), 0);

  std::map<std::string, int> ran_on;
  for (const std::string& id : ids) {
    const v1::Job done = WaitFor(
        nodes[0]->stub(), id, [](const v1::Job& j) { return IsTerminal(j.state()); },
        std::chrono::seconds(240));
    ASSERT_EQ(done.state(), v1::JOB_STATE_SUCCEEDED) << id << " " << done.error();
    ++ran_on[NodeOf(done)];
  }
  ASSERT_EQ(ran_on.size(), 3u);
  for (const auto& [node, count] : ran_on) {
    EXPECT_GT(count, kJobs / 10) << node << " ran " << count << " of " << kJobs;
  }

  // From the store's own audit trail: every job ran exactly once, on one node, and each run
  // started from a claim by that same node.
  const auto rows = Query(
      "SELECT job_id, COUNT(*) FILTER (WHERE state = 'running'), "
      "COUNT(DISTINCT node) FILTER (WHERE state = 'running'), "
      "COUNT(*) FILTER (WHERE state = 'succeeded') FROM job_transitions GROUP BY job_id");
  ASSERT_EQ(rows.size(), static_cast<size_t>(kJobs));
  for (const auto& row : rows) {
    EXPECT_EQ(row[1], "1") << row[0] << " started " << row[1] << " times";
    EXPECT_EQ(row[2], "1") << row[0];
    EXPECT_EQ(row[3], "1") << row[0];
  }
  const auto overlaps = Query(
      "SELECT r.job_id FROM job_transitions r JOIN job_transitions e ON e.job_id = r.job_id "
      "AND e.seq > r.seq AND e.state IN ('succeeded', 'failed', 'cancelled', 'queued') "
      "WHERE r.state = 'running' AND e.node <> r.node AND e.state <> 'queued'");
  EXPECT_TRUE(overlaps.empty()) << overlaps.size() << " jobs ended on another node than ran them";
}

}  // namespace
}  // namespace kbench::testing
