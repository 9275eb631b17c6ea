// Tests of a real kbenchd's /metrics and logs: a scrape passes `promtool check metrics`, a job
// that ran is counted, a real Prometheus server on loopback scrapes it (with deploy/'s alert
// rules loaded) and answers a query for the job counter, and --log-format json gives JSON
// lines with the job id.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kbench/v1/service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/deploy/process.h"
#include "tests/server/metrics/exposition.h"
#include "tests/server/metrics/http_get.h"
#include "tests/server/metrics/promtool.h"

namespace kbench {
namespace {

using ::kbench::testing::FindSample;
using ::kbench::testing::HttpGet;
using ::kbench::testing::Process;
using ::kbench::testing::UrlEncode;
using ::testing::Optional;
using namespace std::chrono_literals;

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = absl::StrCat(base != nullptr ? base : "/tmp", "/kbench_deploy_XXXXXX");
  char* made = mkdtemp(templ.data());
  return made != nullptr ? std::string(made) : std::string();
}

// A loopback port free right now (Prometheus cannot report a port it picked itself).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

class KbenchdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    ASSERT_FALSE(dir_.empty());
  }

  void TearDown() override {
    if (daemon_ != nullptr) {
      absl::StatusOr<int> status = daemon_->Stop(30s);
      ASSERT_TRUE(status.ok()) << status.status() << "\nstderr:\n" << daemon_->Stderr();
      EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
          << "kbenchd must exit cleanly on SIGTERM; wait status " << *status << "\nstderr:\n"
          << daemon_->Stderr();
    }
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  void StartDaemon(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {KBENCH_KBENCHD,     "--open",     "--listen",
                                     "127.0.0.1:0",      "--data-dir", dir_ + "/data",
                                     "--metrics-listen", "127.0.0.1:0"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto started = Process::Start(argv, dir_ + "/kbenchd.out", dir_ + "/kbenchd.err");
    ASSERT_TRUE(started.ok()) << started.status();
    daemon_ = std::move(*started);
    auto ready =
        daemon_->WaitForLine([](const std::string& l) { return l == "kbenchd: ready"; }, 60s);
    ASSERT_TRUE(ready.ok()) << ready.status();
    auto grpc_address = daemon_->WaitForValue("kbenchd: listening on ", 1s);
    ASSERT_TRUE(grpc_address.ok()) << grpc_address.status();
    grpc_address_ = *grpc_address;
    auto metrics_address = daemon_->WaitForValue("kbenchd: metrics on ", 1s);
    ASSERT_TRUE(metrics_address.ok()) << metrics_address.status();
    metrics_address_ = *metrics_address;
  }

  // Submits the small cpu job of the deploy tests and polls it to a terminal state.
  v1::Job RunCpuJob() {
    auto stub = v1::KbenchService::NewStub(
        grpc::CreateChannel(grpc_address_, grpc::InsecureChannelCredentials()));
    v1::SubmitJobRequest request;
    v1::JobSpec* spec = request.mutable_spec();
    spec->set_kind(v1::JOB_KIND_BENCHMARK);
    spec->set_kernel("square");
    spec->add_variants("host_loop");
    spec->add_shape(256);
    spec->add_shape(256);
    spec->set_dtype(v1::DTYPE_F32);
    spec->set_device("cpu");
    spec->mutable_stopping()->set_min_time_seconds(0.01);
    spec->mutable_stopping()->set_min_samples(3);
    spec->mutable_stopping()->set_max_noise(1);
    v1::SubmitJobResponse submitted;
    {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + 10s);
      grpc::Status s = stub->SubmitJob(&context, request, &submitted);
      EXPECT_TRUE(s.ok()) << s.error_message();
      if (!s.ok()) return {};
    }
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    v1::Job job = submitted.job();
    while (job.state() == v1::JOB_STATE_QUEUED || job.state() == v1::JOB_STATE_RUNNING) {
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "job " << job.id() << " not finished within 60 s";
        return job;
      }
      std::this_thread::sleep_for(50ms);
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + 10s);
      v1::GetJobRequest get;
      get.set_job_id(submitted.job().id());
      v1::GetJobResponse got;
      grpc::Status s = stub->GetJob(&context, get, &got);
      if (!s.ok()) {
        ADD_FAILURE() << "GetJob: " << s.error_message();
        return job;
      }
      job = got.job();
    }
    return job;
  }

  std::string Scrape() {
    auto got = HttpGet(metrics_address_, "/metrics");
    EXPECT_TRUE(got.ok()) << got.status();
    if (!got.ok()) return "";
    EXPECT_EQ(got->status, 200);
    return got->body;
  }

  std::string dir_;
  std::unique_ptr<Process> daemon_;
  std::string grpc_address_;
  std::string metrics_address_;
};

TEST_F(KbenchdTest, ScrapePassesPromtoolCheckMetrics) {
  StartDaemon();
  RunCpuJob();  // so that job, queue, run-time and RPC series exist, not only build info
  auto checked = kbench::testing::PromtoolCheckMetrics(KBENCH_PROMTOOL, Scrape());
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->unexpected, "") << checked->output;
}

TEST_F(KbenchdTest, CountsAJobThatRan) {
  StartDaemon();
  const v1::Job job = RunCpuJob();
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  const std::string text = Scrape();
  EXPECT_THAT(
      FindSample(text, "kbench_jobs_submitted_total", {{"kind", "benchmark"}, {"device", "cpu"}}),
      Optional(1.0))
      << text;
  EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                         {{"kind", "benchmark"}, {"device", "cpu"}, {"state", "succeeded"}}),
              Optional(1.0))
      << text;
  EXPECT_THAT(FindSample(text, "kbench_job_run_duration_seconds_count",
                         {{"kind", "benchmark"}, {"device", "cpu"}}),
              Optional(1.0))
      << text;
  EXPECT_THAT(FindSample(text, "kbench_queue_wait_seconds_count", {{"device", "cpu"}}),
              Optional(1.0))
      << text;
  EXPECT_THAT(FindSample(text, "kbench_queue_depth", {{"device", "cpu"}}), Optional(0.0)) << text;
  EXPECT_THAT(
      FindSample(text, "kbench_rpc_requests_total", {{"method", "SubmitJob"}, {"code", "OK"}}),
      Optional(1.0))
      << text;
  EXPECT_EQ(kbench::testing::SamplesNamed(text, "kbench_build_info").size(), 1u) << text;
}

// Every kbench.v1 call is counted once, by the server's interceptor (server/api/
// rpc_observer.h), under its method and the status code sent: a handler's early error as well
// as its success.
TEST_F(KbenchdTest, CountsEachCallOnceByMethodAndStatusCode) {
  StartDaemon();
  auto stub = v1::KbenchService::NewStub(
      grpc::CreateChannel(grpc_address_, grpc::InsecureChannelCredentials()));
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext context;
    v1::GetJobRequest get;
    get.set_job_id("j-nothere");
    v1::GetJobResponse got;
    EXPECT_EQ(stub->GetJob(&context, get, &got).error_code(), grpc::StatusCode::NOT_FOUND);
  }
  {
    grpc::ClientContext context;
    v1::ListKernelsResponse kernels;
    EXPECT_TRUE(stub->ListKernels(&context, v1::ListKernelsRequest(), &kernels).ok());
  }
  const std::string text = Scrape();
  EXPECT_THAT(
      FindSample(text, "kbench_rpc_requests_total", {{"method", "GetJob"}, {"code", "NOT_FOUND"}}),
      Optional(3.0))
      << text;
  EXPECT_THAT(
      FindSample(text, "kbench_rpc_requests_total", {{"method", "ListKernels"}, {"code", "OK"}}),
      Optional(1.0))
      << text;
  EXPECT_THAT(FindSample(text, "kbench_rpc_duration_seconds_count", {{"method", "GetJob"}}),
              Optional(3.0))
      << text;
}

TEST_F(KbenchdTest, PrometheusServerScrapesTheJobCounter) {
  const std::string prometheus = KBENCH_PROMETHEUS;
  ASSERT_FALSE(prometheus.empty() || absl::StrContains(prometheus, "NOTFOUND"))
      << "prometheus not found; install Debian's `prometheus` package";
  StartDaemon();
  const v1::Job job = RunCpuJob();
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();

  // A scrape every second, and deploy/'s alert rules loaded against the real series.
  const std::string config = dir_ + "/prometheus.yml";
  std::ofstream(config) << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                        << "rule_files:\n  - " << KBENCH_SOURCE_DIR
                        << "/deploy/prometheus/alerts.yml\n"
                        << "scrape_configs:\n  - job_name: kbench\n    static_configs:\n"
                        << "      - targets: ['" << metrics_address_ << "']\n";
  std::unique_ptr<Process> server;
  std::string web;
  // The port is free when picked but may be taken before Prometheus binds it: retry.
  for (int attempt = 0; attempt < 3 && server == nullptr; ++attempt) {
    web = absl::StrCat("127.0.0.1:", FreePort());
    auto started = Process::Start(
        {prometheus, "--config.file=" + config, "--storage.tsdb.path=" + dir_ + "/tsdb",
         "--web.listen-address=" + web, "--log.level=warn"},
        dir_ + "/prometheus.out", dir_ + "/prometheus.err");
    ASSERT_TRUE(started.ok()) << started.status();
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    bool ready = false;
    while (!ready && !(*started)->HasExited() && std::chrono::steady_clock::now() < deadline) {
      auto got = HttpGet(web, "/-/ready", 2s);
      ready = got.ok() && got->status == 200;
      if (!ready) std::this_thread::sleep_for(100ms);
    }
    if (ready) {
      server = std::move(*started);
    } else {
      ASSERT_TRUE((*started)->HasExited()) << "prometheus not ready within 60 s:\n"
                                           << (*started)->Stderr();
    }
  }
  ASSERT_NE(server, nullptr) << "prometheus did not start";

  const std::string query = "kbench_jobs_submitted_total{kind=\"benchmark\",device=\"cpu\"}";
  nlohmann::json result;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  for (;;) {
    auto got = HttpGet(web, "/api/v1/query?query=" + UrlEncode(query), 5s);
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->status, 200) << got->body;
    const nlohmann::json body = nlohmann::json::parse(got->body);
    ASSERT_EQ(body.at("status"), "success") << got->body;
    result = body.at("data").at("result");
    if (!result.empty()) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "Prometheus has no " << query
        << " after 60 s; targets: " << HttpGet(web, "/api/v1/targets")->body;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(result.size(), 1u) << result.dump();
  EXPECT_EQ(result[0].at("metric").at("job"), "kbench");
  EXPECT_EQ(result[0].at("metric").at("instance"), metrics_address_);
  EXPECT_EQ(result[0].at("value").at(1), "1") << result.dump();

  // Every alert rule evaluates without error on kbenchd's real series.
  const auto rules_deadline = std::chrono::steady_clock::now() + 30s;
  for (;;) {
    auto got = HttpGet(web, "/api/v1/rules", 5s);
    ASSERT_TRUE(got.ok()) << got.status();
    const nlohmann::json groups = nlohmann::json::parse(got->body).at("data").at("groups");
    ASSERT_FALSE(groups.empty()) << got->body;
    int evaluated = 0;
    int total = 0;
    std::string unhealthy;
    for (const auto& group : groups) {
      for (const auto& rule : group.at("rules")) {
        ++total;
        const std::string health = rule.at("health");
        if (health == "ok") ++evaluated;
        if (health == "err") unhealthy += rule.dump() + "\n";
      }
    }
    EXPECT_EQ(unhealthy, "");
    if (evaluated == total) break;
    ASSERT_LT(std::chrono::steady_clock::now(), rules_deadline) << got->body;
    std::this_thread::sleep_for(200ms);
  }

  absl::StatusOr<int> stopped = server->Stop(30s);
  EXPECT_TRUE(stopped.ok()) << stopped.status();
}

TEST_F(KbenchdTest, WritesJsonLogLinesWithTheJobId) {
  StartDaemon({"--log-format", "json"});
  const v1::Job job = RunCpuJob();
  ASSERT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.error();
  // Stop first so that every line is written.
  absl::StatusOr<int> status = daemon_->Stop(30s);
  ASSERT_TRUE(status.ok()) << status.status();
  const std::string logs = daemon_->Stderr();
  int lines = 0;
  int job_lines = 0;
  std::istringstream in(logs);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    ++lines;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(line)) << "not a JSON line: " << line;
    EXPECT_TRUE(j.contains("ts") && j.contains("level") && j.contains("msg")) << line;
    if (j.contains("job_id") && j.at("job_id") == job.id()) ++job_lines;
  }
  EXPECT_GT(lines, 0);
  EXPECT_GT(job_lines, 0) << "no log line carries job_id " << job.id() << ":\n" << logs;
}

}  // namespace
}  // namespace kbench
