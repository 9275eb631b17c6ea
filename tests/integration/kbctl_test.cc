// Integration: kbctl against a real kbenchd — what a person and a script see, and exit codes.
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

struct KbctlRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A kbctl started with popen: its stdout is read, its stderr goes to a file, on Finish().
struct KbctlProcess {
  FILE* pipe = nullptr;
  std::string err_path;
};

class KbctlTest : public ::testing::Test {
 protected:
  // Starts kbctl with `args` against the daemon, without waiting for it.
  KbctlProcess Start(const std::string& args) {
    KbctlProcess p;
    p.err_path = dir_.path() + "/kbctl_stderr_" + std::to_string(runs_++);
    const std::string cmd = std::string(KBCTL_PATH) + " --server " + daemon_.address() + " " +
                            args + " 2>" + p.err_path;
    p.pipe = popen(cmd.c_str(), "r");
    return p;
  }

  // Reads the process's stdout to its end, waits for it, and reads its stderr.
  static KbctlRun Finish(KbctlProcess p) {
    KbctlRun run;
    if (p.pipe == nullptr) return run;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p.pipe)) > 0) run.out.append(buf.data(), n);
    const int status = pclose(p.pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(p.err_path);
    run.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
    return run;
  }

  // Runs kbctl with `args` against the daemon to its exit.
  KbctlRun Kbctl(const std::string& args) { return Finish(Start(args)); }

  static constexpr const char* kQuick =
      "bench square --variant host_loop --shape 128x128 --device cpu --min-time 0.01 "
      "--min-samples 5 --max-noise 0.99";

  TempDir dir_;
  Daemon daemon_{dir_.path()};
  int runs_ = 0;
};

TEST_F(KbctlTest, BenchPrintsACheckedResultAndJsonForScripts) {
  KbctlRun table = Kbctl(kQuick);
  EXPECT_EQ(table.exit_code, 0) << table.out;
  EXPECT_NE(table.out.find("Median"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Correctness:  pass"), std::string::npos) << table.out;

  KbctlRun json = Kbctl(std::string("-o json ") + kQuick);
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const nlohmann::json doc = nlohmann::json::parse(json.out);  // stdout is exactly one document
  const auto& job = doc.contains("job") ? doc["job"] : doc;
  EXPECT_EQ(job["state"], "JOB_STATE_SUCCEEDED");
  EXPECT_GT(job["result"]["variants"][0]["stats"]["median_seconds"].get<double>(), 0);
  EXPECT_TRUE(job["result"]["variants"][0]["correctness"]["passed"].get<bool>());
}

// Issue 28: kbctl version prints its own version and the server's, with the API both speak; the
// server's comes from the daemon (ListNodes), and --client asks no server.
TEST_F(KbctlTest, VersionPrintsTheClientsAndTheServersWithTheirApi) {
  KbctlRun table = Kbctl("version");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("Client: kbctl "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Server: kbenchd "), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("(unknown)"), std::string::npos) << table.out;
  KbctlRun json = Kbctl("-o json version");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["client"]["api"], "kbench.v1");
  EXPECT_EQ(doc["server"]["nodes"][0]["version"], doc["client"]["version"]) << json.out;
  // --client: no server is asked, so a server that is not there is no error.
  const std::string offline = std::string(KBCTL_PATH) + " --server 127.0.0.1:1 version --client";
  FILE* pipe = popen(offline.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 256> buf{};
  const size_t n = fread(buf.data(), 1, buf.size() - 1, pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_NE(std::string(buf.data(), n).find("Client: kbctl "), std::string::npos);
}

// JobSpec.placements through a real daemon and executor: every variant timed at three
// placements, each placement's median in the result and its samples in samples.csv.
TEST_F(KbctlTest, TimesAVariantAtSeveralPlacements) {
  KbctlRun json = Kbctl(std::string("-o json ") + kQuick + " --placements 3");
  ASSERT_EQ(json.exit_code, 0) << json.out;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const auto& job = doc.contains("job") ? doc["job"] : doc;
  ASSERT_EQ(job["result"]["variants"].size(), 1u);
  for (const auto& v : job["result"]["variants"]) {
    ASSERT_EQ(v["placements"].size(), 3u) << v.dump();
    int64_t samples = 0;
    for (const auto& p : v["placements"]) {
      EXPECT_GT(p["median_seconds"].get<double>(), 0) << v.dump();
      samples += std::stoll(p["samples"].get<std::string>());  // int64 is a string in JSON
    }
    EXPECT_EQ(std::stoll(v["stats"]["samples"].get<std::string>()), samples);
    EXPECT_EQ(v["placements"][0]["tensor_gap_bytes"], "0") << "the first has no gap";
    EXPECT_NE(v["placements"][1]["tensor_gap_bytes"], "0");
  }
  const std::string id = job["id"];
  KbctlRun table = Kbctl("get " + id);
  EXPECT_NE(table.out.find("Placements:   3, medians spread"), std::string::npos) << table.out;
  const std::string file = dir_.path() + "/placed.csv";
  ASSERT_EQ(Kbctl("artifacts get " + id + " samples.csv -f " + file).exit_code, 0);
  std::ifstream csv(file);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.substr(header.rfind(',') + 1), "placement");
}

TEST_F(KbctlTest, NoWaitThenGetJobsCancelAndWatch) {
  KbctlRun submitted = Kbctl(std::string("-o json ") +
                             "bench square --variant host_loop --shape 128x128 --device cpu "
                             "--min-time 60 --timeout-s 60 --no-wait");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out;
  const nlohmann::json doc = nlohmann::json::parse(submitted.out);
  const std::string id = (doc.contains("job") ? doc["job"] : doc)["id"];
  ASSERT_FALSE(id.empty());

  KbctlRun get = Kbctl("-o json get " + id);
  EXPECT_EQ(get.exit_code, 0);
  EXPECT_NE(get.out.find(id), std::string::npos);

  KbctlRun jobs = Kbctl("jobs");
  EXPECT_EQ(jobs.exit_code, 0);
  EXPECT_NE(jobs.out.find(id), std::string::npos) << jobs.out;

  KbctlRun cancel = Kbctl("cancel " + id);
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out;
  // Watching a cancelled job ends at once, with the "job did not succeed" exit code.
  KbctlRun watch = Kbctl("watch " + id);
  EXPECT_EQ(watch.exit_code, 1) << watch.out;
  KbctlRun again = Kbctl("cancel " + id);
  EXPECT_EQ(again.exit_code, 3);
}

TEST_F(KbctlTest, HealthKernelsDevicesAndArtifacts) {
  KbctlRun health = Kbctl("health");
  EXPECT_EQ(health.exit_code, 0);
  EXPECT_NE(health.out.find("SERVING"), std::string::npos);
  KbctlRun kernels = Kbctl("kernels");
  EXPECT_EQ(kernels.exit_code, 0);
  EXPECT_NE(kernels.out.find("softmax"), std::string::npos);
  KbctlRun devices = Kbctl("-o json devices");
  EXPECT_EQ(devices.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(devices.out)["devices"][0]["id"], "cpu");

  KbctlRun bench = Kbctl(std::string("-o json ") + kQuick);
  ASSERT_EQ(bench.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(bench.out);
  const std::string id = (doc.contains("job") ? doc["job"] : doc)["id"];
  const std::string file = dir_.path() + "/samples.csv";
  KbctlRun get = Kbctl("artifacts get " + id + " samples.csv -f " + file);
  EXPECT_EQ(get.exit_code, 0) << get.out;
  FILE* f = std::fopen(file.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char header[64] = {};
  ASSERT_NE(std::fgets(header, sizeof(header), f), nullptr);
  std::fclose(f);
  EXPECT_EQ(std::string(header).rfind("variant,sample,seconds", 0), 0u);
}

// Exit codes (client/errors.h, `kbctl --help`): 0 the job succeeded, 1 it failed or was
// cancelled, 2 a usage error (nothing sent), 3 an RPC error; the RPC's code is on stderr.

TEST_F(KbctlTest, ExitsZeroWhenTheJobSucceeds) {
  const KbctlRun run = Kbctl(kQuick);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("Correctness:  pass"), std::string::npos) << run.out;
}

TEST_F(KbctlTest, ExitsOneWhenTheJobItWaitsForIsCancelled) {
  KbctlProcess bench = Start(
      "bench square --variant host_loop --shape 128x128 --device cpu --min-time 60 "
      "--timeout-s 60");
  ASSERT_NE(bench.pipe, nullptr);
  // The job kbctl submitted, once it runs (kbctl is then waiting on its WatchJob).
  std::string id;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (id.empty() && std::chrono::steady_clock::now() < deadline) {
    grpc::ClientContext ctx;
    v1::ListJobsRequest req;
    req.set_state(v1::JOB_STATE_RUNNING);
    v1::ListJobsResponse resp;
    ASSERT_TRUE(daemon_.stub().ListJobs(&ctx, req, &resp).ok());
    if (resp.jobs_size() > 0) id = resp.jobs(0).id();
    if (id.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // poll interval
  }
  ASSERT_FALSE(id.empty()) << "kbctl's job never ran";
  grpc::ClientContext ctx;
  v1::CancelJobRequest cancel;
  cancel.set_job_id(id);
  v1::CancelJobResponse cancelled;
  ASSERT_TRUE(daemon_.stub().CancelJob(&ctx, cancel, &cancelled).ok());

  const KbctlRun run = Finish(bench);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("kbctl: CANCELLED: job " + id + " was cancelled"), std::string::npos)
      << run.err;
}

TEST_F(KbctlTest, ExitsTwoOnAUsageErrorWithoutAnRpc) {
  const KbctlRun run = Kbctl("bench square --variant host_loop --shape 0x5");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("--shape"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("INVALID_ARGUMENT"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("submitted job"), std::string::npos) << run.err;
}

TEST_F(KbctlTest, ExitsThreeWithTheCodeWhenTheServerAnswersNotFound) {
  const KbctlRun run = Kbctl("get j-doesnotexist");
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("kbctl: NOT_FOUND: "), std::string::npos) << run.err;
}

TEST_F(KbctlTest, ExitsThreeWithTheCodeWhenTheServerRefusesTheSpec) {
  const KbctlRun run = Kbctl("bench square --variant host_loop --shape 8x8 --device cuda:9");
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_NE(run.err.find("kbctl: INVALID_ARGUMENT: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("cuda:9"), std::string::npos) << run.err;
}

TEST_F(KbctlTest, ShowsAQueuedJobsPlaceWhileWaitingAndUsagePerOwner) {
  KbctlRun blocker = Kbctl(std::string("-o json ") +
                           "bench square --variant host_loop --shape 128x128 --device cpu "
                           "--min-time 60 --timeout-s 60 --no-wait");
  ASSERT_EQ(blocker.exit_code, 0) << blocker.out;
  const nlohmann::json doc = nlohmann::json::parse(blocker.out);
  const std::string id = (doc.contains("job") ? doc["job"] : doc)["id"];
  WaitFor(daemon_.stub(), id, [](const v1::Job& j) { return j.state() != v1::JOB_STATE_QUEUED; });
  // Waits behind the blocker: its progress line (stderr) says where it stands.
  KbctlProcess waiting = Start(kQuick);
  const auto said_place = [&] {
    std::ifstream err(waiting.err_path);
    const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    return text.find("queued: next in line on cpu, about") != std::string::npos;
  };
  for (int i = 0; i < 300 && !said_place(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(said_place());
  EXPECT_EQ(Kbctl("cancel " + id).exit_code, 0);
  KbctlRun done = Finish(waiting);
  EXPECT_EQ(done.exit_code, 0) << done.err;

  KbctlRun usage = Kbctl("usage");
  ASSERT_EQ(usage.exit_code, 0) << usage.err;
  EXPECT_NE(usage.out.find("DECAYED-GPU-S"), std::string::npos) << usage.out;
  EXPECT_NE(usage.out.find("local"), std::string::npos) << usage.out;
  EXPECT_NE(usage.out.find("half-life 60 min"), std::string::npos) << usage.out;
}

}  // namespace
}  // namespace kbench::testing
