// Unit tests of kbenchd's Prometheus series: what each Metrics call puts in the registry (read
// as text, without HTTP), bounded label values, the /metrics server, and promtool's lint.
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/metrics/prometheus_metrics.h"
#include "tests/server/metrics/exposition.h"
#include "tests/server/metrics/fake_gpu_source.h"
#include "tests/server/metrics/http_get.h"
#include "tests/server/metrics/promtool.h"

namespace kbench::metrics {
namespace {

using ::kbench::testing::FamilyNames;
using ::kbench::testing::FindSample;
using ::kbench::testing::SamplesNamed;
using ::testing::HasSubstr;
using ::testing::Optional;

// No GPU source at all: a factory that says NVML is absent.
GpuCollector::SourceFactory NoNvml() {
  return [] {
    return absl::StatusOr<std::unique_ptr<GpuSource>>(
        absl::FailedPreconditionError("no NVML in this test"));
  };
}

// `text` without the lines of family `name` (whose "other" series exists from the start).
std::string WithoutFamily(const std::string& text, const std::string& name) {
  std::string kept;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StrContains(line, name)) absl::StrAppend(&kept, line, "\n");
  }
  return kept;
}

std::unique_ptr<PrometheusMetrics> NewMetrics() {
  auto m = PrometheusMetrics::Create("", NoNvml());
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(PrometheusMetrics, CountsSubmittedJobsByKindAndDevice) {
  auto m = NewMetrics();
  m->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  m->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  m->JobSubmitted(kbench::JobKind::kProfile, "cuda:0");
  const std::string text = m->ScrapeText();
  EXPECT_THAT(
      FindSample(text, "kbench_jobs_submitted_total", {{"kind", "benchmark"}, {"device", "cpu"}}),
      Optional(2.0));
  EXPECT_THAT(
      FindSample(text, "kbench_jobs_submitted_total", {{"kind", "profile"}, {"device", "cuda:0"}}),
      Optional(1.0));
}

TEST(PrometheusMetrics, CountsJobsPerOwnerWithABoundedLabel) {
  auto m = NewMetrics();
  m->SetKnownOwners({"alice", "bob"});  // the auth file's users
  m->OwnerJobSubmitted("alice");
  m->OwnerJobSubmitted("alice");
  m->OwnerJobSubmitted("bad owner\n{x=\"1\"}");
  for (int i = 0; i < 10; ++i) m->OwnerJobSubmitted(absl::StrCat("u", i));
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_owner_jobs_submitted_total", {{"owner", "alice"}}),
              Optional(2.0));
  // Anyone the auth file does not list, odd names included, counts as other.
  EXPECT_EQ(FindSample(text, "kbench_owner_jobs_submitted_total", {{"owner", "u0"}}), std::nullopt);
  EXPECT_THAT(FindSample(text, "kbench_owner_jobs_submitted_total", {{"owner", "other"}}),
              Optional(11.0));
}

TEST(PrometheusMetrics, CreatesFinishedSeriesAtZeroOnFirstSubmit) {
  auto m = NewMetrics();
  m->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  const std::string text = m->ScrapeText();
  for (const char* state : {"succeeded", "failed", "cancelled"}) {
    EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                           {{"kind", "benchmark"}, {"device", "cpu"}, {"state", state}}),
                Optional(0.0))
        << state;
  }
}

TEST(PrometheusMetrics, CountsFinishedJobsByState) {
  auto m = NewMetrics();
  m->JobFinished(kbench::JobKind::kBenchmark, "cuda:1", "failed");
  m->JobFinished(kbench::JobKind::kBenchmark, "cuda:1", "failed");
  m->JobFinished(kbench::JobKind::kBenchmark, "cuda:1", "succeeded");
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                         {{"kind", "benchmark"}, {"device", "cuda:1"}, {"state", "failed"}}),
              Optional(2.0));
  EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                         {{"kind", "benchmark"}, {"device", "cuda:1"}, {"state", "succeeded"}}),
              Optional(1.0));
}

TEST(PrometheusMetrics, ReportsLatestQueueDepthPerDevice) {
  auto m = NewMetrics();
  m->SetQueueDepth("cpu", 5);
  m->SetQueueDepth("cpu", 3);
  m->SetQueueDepth("cuda:0", 7);
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_queue_depth", {{"device", "cpu"}}), Optional(3.0));
  EXPECT_THAT(FindSample(text, "kbench_queue_depth", {{"device", "cuda:0"}}), Optional(7.0));
}

TEST(PrometheusMetrics, ObservesQueueWaitIntoSecondBuckets) {
  auto m = NewMetrics();
  m->ObserveQueueWait("cpu", 0.2);
  m->ObserveQueueWait("cpu", 45);
  m->ObserveQueueWait("cpu", -1);  // a clock stepped back: counted as 0, not a negative sum
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_queue_wait_seconds_count", {{"device", "cpu"}}),
              Optional(3.0));
  EXPECT_THAT(FindSample(text, "kbench_queue_wait_seconds_sum", {{"device", "cpu"}}),
              Optional(45.2));
  EXPECT_THAT(
      FindSample(text, "kbench_queue_wait_seconds_bucket", {{"device", "cpu"}, {"le", "0.01"}}),
      Optional(1.0));
  EXPECT_THAT(
      FindSample(text, "kbench_queue_wait_seconds_bucket", {{"device", "cpu"}, {"le", "0.5"}}),
      Optional(2.0));
  EXPECT_THAT(
      FindSample(text, "kbench_queue_wait_seconds_bucket", {{"device", "cpu"}, {"le", "30"}}),
      Optional(2.0));
  EXPECT_THAT(
      FindSample(text, "kbench_queue_wait_seconds_bucket", {{"device", "cpu"}, {"le", "60"}}),
      Optional(3.0));
  EXPECT_THAT(
      FindSample(text, "kbench_queue_wait_seconds_bucket", {{"device", "cpu"}, {"le", "+Inf"}}),
      Optional(3.0));
}

TEST(PrometheusMetrics, ObservesRunDurationByKindAndDevice) {
  auto m = NewMetrics();
  m->ObserveRunDuration(kbench::JobKind::kBenchmark, "cuda:0", 3.0);
  m->ObserveRunDuration(kbench::JobKind::kBenchmark, "cuda:0", 200.0);
  const std::string text = m->ScrapeText();
  const std::map<std::string, std::string> labels = {{"kind", "benchmark"}, {"device", "cuda:0"}};
  EXPECT_THAT(FindSample(text, "kbench_job_run_duration_seconds_count", labels), Optional(2.0));
  auto le = [&](const char* bound) {
    auto l = labels;
    l["le"] = bound;
    return FindSample(text, "kbench_job_run_duration_seconds_bucket", l);
  };
  EXPECT_THAT(le("2.5"), Optional(0.0));
  EXPECT_THAT(le("5"), Optional(1.0));
  EXPECT_THAT(le("120"), Optional(1.0));
  EXPECT_THAT(le("300"), Optional(2.0));
  // Buckets span seconds to minutes: a benchmark job's real range.
  EXPECT_EQ(SamplesNamed(text, "kbench_job_run_duration_seconds_bucket").size(),
            RunDurationBuckets().size() + 1);
}

TEST(PrometheusMetrics, CountsExecutorRestartsByCause) {
  auto m = NewMetrics();
  m->ExecutorRestarted("cuda:0", kbench::ExecutorFailure::kSignal);
  m->ExecutorRestarted("cuda:0", kbench::ExecutorFailure::kStickyError);
  m->ExecutorRestarted("cuda:0", kbench::ExecutorFailure::kSignal);
  const std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_executor_restarts_total",
                         {{"device", "cuda:0"}, {"cause", "signal"}}),
              Optional(2.0));
  EXPECT_THAT(FindSample(text, "kbench_executor_restarts_total",
                         {{"device", "cuda:0"}, {"cause", "sticky_error"}}),
              Optional(1.0));
}

TEST(PrometheusMetrics, CreatesEveryRestartCauseAtZeroWhenADeviceIsFirstSeen) {
  auto m = NewMetrics();
  EXPECT_EQ(FindSample(m->ScrapeText(), "kbench_executor_restarts_total",
                       {{"device", "cuda:0"}, {"cause", "signal"}}),
            std::nullopt);
  m->SetQueueDepth("cuda:0", 0);  // the scheduler does this for every device at start
  const std::string text = m->ScrapeText();
  for (const char* cause : {"signal", "exit", "sticky_error", "start_failed", "hung", "cancel_kill",
                            "wire_error", "owner_changed"}) {
    EXPECT_THAT(FindSample(text, "kbench_executor_restarts_total",
                           {{"device", "cuda:0"}, {"cause", cause}}),
                Optional(0.0))
        << cause;
  }
}

TEST(PrometheusMetrics, CountsRpcsByMethodAndCodeWithLatency) {
  auto m = NewMetrics();
  m->ObserveRpc("SubmitJob", "OK", 0.002);
  m->ObserveRpc("SubmitJob", "INVALID_ARGUMENT", 0.0004);
  m->ObserveRpc("GetJob", "NOT_FOUND", 0.001);
  const std::string text = m->ScrapeText();
  EXPECT_THAT(
      FindSample(text, "kbench_rpc_requests_total", {{"method", "SubmitJob"}, {"code", "OK"}}),
      Optional(1.0));
  EXPECT_THAT(FindSample(text, "kbench_rpc_requests_total",
                         {{"method", "SubmitJob"}, {"code", "INVALID_ARGUMENT"}}),
              Optional(1.0));
  EXPECT_THAT(FindSample(text, "kbench_rpc_duration_seconds_count", {{"method", "SubmitJob"}}),
              Optional(2.0));
  EXPECT_THAT(FindSample(text, "kbench_rpc_duration_seconds_bucket",
                         {{"method", "SubmitJob"}, {"le", "0.0005"}}),
              Optional(1.0));
  EXPECT_THAT(FindSample(text, "kbench_rpc_duration_seconds_bucket",
                         {{"method", "SubmitJob"}, {"le", "0.0025"}}),
              Optional(2.0));
}

TEST(PrometheusMetrics, ReportsArtifactStoreBytes) {
  auto m = NewMetrics();
  m->SetArtifactBytes(123456789);
  EXPECT_THAT(FindSample(m->ScrapeText(), "kbench_artifact_store_bytes", {}),
              Optional(123456789.0));
}

TEST(PrometheusMetrics, ReportsBuildInfoWithVersion) {
  auto m = NewMetrics();
  const auto info = SamplesNamed(m->ScrapeText(), "kbench_build_info");
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0].value, 1.0);
  EXPECT_EQ(info[0].labels.at("version"), KBENCH_TEST_VERSION);
  EXPECT_FALSE(info[0].labels.at("revision").empty());
  EXPECT_THAT(info[0].labels.at("compiler"), HasSubstr("gcc"));
}

// Issue 28: a device's state one-hot over every state (the states it left read 0), whether it
// runs a job, and the process_* series of the daemon itself.
TEST(PrometheusMetrics, ShowsEachDevicesStateAndRunningJobAndTheProcess) {
  auto m = NewMetrics();
  m->SetDeviceState("cuda:0", "starting");
  m->SetDeviceState("cuda:0", "ready");
  m->SetJobRunning("cuda:0", true);
  std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_device_state", {{"device", "cuda:0"}, {"state", "ready"}}),
              Optional(1.0));
  EXPECT_THAT(
      FindSample(text, "kbench_device_state", {{"device", "cuda:0"}, {"state", "starting"}}),
      Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_device_state", {{"device", "cuda:0"}, {"state", "failed"}}),
              Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_jobs_running", {{"device", "cuda:0"}}), Optional(1.0));
  m->SetJobRunning("cuda:0", false);
  m->SetDeviceState("cuda:0", "exploded");  // not a state: every state reads 0, none is added
  text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_jobs_running", {{"device", "cuda:0"}}), Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_device_state", {{"device", "cuda:0"}, {"state", "ready"}}),
              Optional(0.0));
  EXPECT_FALSE(absl::StrContains(text, "exploded"));
  EXPECT_THAT(FindSample(text, "process_open_fds", {}), Optional(::testing::Gt(2.0)));
  EXPECT_THAT(FindSample(text, "process_resident_memory_bytes", {}), Optional(::testing::Gt(1e6)));
}

// Issue 28: refused store writes by reason (both at 0 from the start), and the fleet as a node
// reads it: each node alive or lost with its heartbeat's age, and the leases it took over.
TEST(PrometheusMetrics, CountsRefusedStoreWritesAndShowsTheFleet) {
  auto m = NewMetrics();
  std::string text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_store_write_failures_total", {{"reason", "disk_full"}}),
              Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_store_write_failures_total", {{"reason", "unavailable"}}),
              Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_fleet_lease_takeovers_total", {}), Optional(0.0));
  m->StoreWriteRefused("disk_full");
  m->StoreWriteRefused("disk_full");
  m->StoreWriteRefused("whatever");  // not a reason: counted as unavailable, no new series
  m->SetFleetNode("gpu-a", true, 0.4);
  m->SetFleetNode("gpu-b", false, 21.5);
  m->LeasesTakenOver(3);
  m->LeasesTakenOver(0);
  text = m->ScrapeText();
  EXPECT_THAT(FindSample(text, "kbench_store_write_failures_total", {{"reason", "disk_full"}}),
              Optional(2.0));
  EXPECT_THAT(FindSample(text, "kbench_store_write_failures_total", {{"reason", "unavailable"}}),
              Optional(1.0));
  EXPECT_FALSE(absl::StrContains(text, "whatever"));
  EXPECT_THAT(FindSample(text, "kbench_fleet_node_alive", {{"node", "gpu-a"}}), Optional(1.0));
  EXPECT_THAT(FindSample(text, "kbench_fleet_node_alive", {{"node", "gpu-b"}}), Optional(0.0));
  EXPECT_THAT(FindSample(text, "kbench_fleet_heartbeat_age_seconds", {{"node", "gpu-b"}}),
              Optional(21.5));
  EXPECT_THAT(FindSample(text, "kbench_fleet_lease_takeovers_total", {}), Optional(3.0));
}

TEST(PrometheusMetrics, CountsUnexpectedLabelValuesAsOther) {
  auto m = NewMetrics();
  // A job id where a device belongs, a free-form state: none may become a label value of its
  // own, or series would grow with every job. (Kind and cause are enums: nothing to guard.)
  m->JobSubmitted(kbench::JobKind::kBenchmark, "job-0123456789abcdef");
  m->JobSubmitted(kbench::JobKind::kBenchmark, "Node A/cuda:0");   // not a node's name
  m->JobSubmitted(kbench::JobKind::kBenchmark, "a/b/cuda:0");      // one node, not a path
  m->JobSubmitted(kbench::JobKind::kBenchmark, "h100 sxm\n:any");  // not a model word
  m->JobFinished(kbench::JobKind::kBenchmark, "cpu", "exploded");
  m->ObserveRpc("/kbench.v1.KbenchService/SubmitJob?x=1", "NOPE", 0.01);
  const std::string text = m->ScrapeText();
  EXPECT_THAT(
      FindSample(text, "kbench_jobs_submitted_total", {{"kind", "benchmark"}, {"device", "other"}}),
      Optional(4.0));
  EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                         {{"kind", "benchmark"}, {"device", "cpu"}, {"state", "other"}}),
              Optional(1.0));
  EXPECT_THAT(
      FindSample(text, "kbench_rpc_requests_total", {{"method", "other"}, {"code", "other"}}),
      Optional(1.0));
  EXPECT_FALSE(absl::StrContains(text, "job-0123456789abcdef"));
}

TEST(PrometheusMetrics, AcceptsEveryDocumentedLabelValue) {
  // Each documented value (docs/operations.md, "Metrics") must come out as its own series with
  // the value it was given: a distinct value per label, so a value that was dropped, renamed or
  // folded into "other" (or into another value's series) is caught.
  auto m = NewMetrics();
  // A fleet's resolved targets too (server/fleet/target.h): any node's, one node's device.
  const std::vector<std::string> devices = {"cpu",     "cuda:0",   "cuda:7",       "cuda:any",
                                            "cpu:any", "h100:any", "gpu-a/cuda:0", "gpu-a/cpu"};
  for (size_t i = 0; i < devices.size(); ++i) m->SetQueueDepth(devices[i], 10 + i);
  const std::vector<std::pair<kbench::ExecutorFailure, std::string>> causes = {
      {kbench::ExecutorFailure::kSignal, "signal"},
      {kbench::ExecutorFailure::kExit, "exit"},
      {kbench::ExecutorFailure::kStickyError, "sticky_error"},
      {kbench::ExecutorFailure::kStartFailed, "start_failed"},
      {kbench::ExecutorFailure::kHung, "hung"},
      {kbench::ExecutorFailure::kCancelKill, "cancel_kill"},
      {kbench::ExecutorFailure::kWireError, "wire_error"},
      {kbench::ExecutorFailure::kOwnerChanged, "owner_changed"}};
  for (size_t i = 0; i < causes.size(); ++i) {
    for (size_t n = 0; n <= i; ++n) m->ExecutorRestarted("cpu", causes[i].first);
  }
  const std::vector<std::string> states = {"succeeded", "failed", "cancelled"};
  for (size_t i = 0; i < states.size(); ++i) {
    for (size_t n = 0; n <= i; ++n) m->JobFinished(kbench::JobKind::kProfile, "cpu", states[i]);
  }
  const std::string text = m->ScrapeText();

  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_THAT(FindSample(text, "kbench_queue_depth", {{"device", devices[i]}}),
                Optional(10.0 + i))
        << devices[i];
  }
  for (size_t i = 0; i < causes.size(); ++i) {
    EXPECT_THAT(FindSample(text, "kbench_executor_restarts_total",
                           {{"device", "cpu"}, {"cause", causes[i].second}}),
                Optional(1.0 + i))
        << causes[i].second;
  }
  for (size_t i = 0; i < states.size(); ++i) {
    EXPECT_THAT(FindSample(text, "kbench_jobs_finished_total",
                           {{"kind", "profile"}, {"device", "cpu"}, {"state", states[i]}}),
                Optional(1.0 + i))
        << states[i];
  }
  EXPECT_FALSE(absl::StrContains(WithoutFamily(text, "kbench_auth_failures_total"), "\"other\""))
      << text;
}

TEST(PrometheusMetrics, AcceptsEveryStatusCodeNameTheServiceReports) {
  // The service labels an RPC with absl::StatusCodeToString of its status (server/api): every
  // one of the 17 canonical codes must keep a series of its own.
  std::vector<std::string> codes;
  for (int c = 0; c <= 16; ++c) codes.push_back(absl::StatusCodeToString(absl::StatusCode(c)));
  auto m = NewMetrics();
  for (size_t i = 0; i < codes.size(); ++i) {
    for (size_t n = 0; n <= i; ++n) m->ObserveRpc("GetJob", codes[i], 0.001);
  }
  const std::string text = m->ScrapeText();
  for (size_t i = 0; i < codes.size(); ++i) {
    EXPECT_THAT(
        FindSample(text, "kbench_rpc_requests_total", {{"method", "GetJob"}, {"code", codes[i]}}),
        Optional(1.0 + i))
        << codes[i];
  }
  EXPECT_FALSE(absl::StrContains(WithoutFamily(text, "kbench_auth_failures_total"), "\"other\""))
      << text;
}

TEST(PrometheusMetrics, HasNoGpuSeriesWithoutNvml) {
  auto m = NewMetrics();
  m->AddGpu("cuda:0", "GPU-00000000-0000-0000-0000-000000000000", "NVIDIA H100", 0);
  const std::string text = m->ScrapeText();
  EXPECT_FALSE(absl::StrContains(text, "DCGM_FI_")) << text;
  EXPECT_FALSE(absl::StrContains(text, "kbench_gpu_")) << text;
}

TEST(PrometheusMetrics, HasNoGpuSeriesOnThisHostForAnUnknownGpu) {
  // The production path: real NVML if this host has a driver, none otherwise. Either way a GPU
  // the driver does not know gets no series, never zeros.
  auto m = Metrics::Create("");
  ASSERT_TRUE(m.ok()) << m.status();
  (*m)->AddGpu("cuda:9", "GPU-ffffffff-ffff-ffff-ffff-ffffffffffff", "none", 9);
  const std::string text = dynamic_cast<PrometheusMetrics&>(**m).ScrapeText();
  EXPECT_FALSE(absl::StrContains(text, "DCGM_FI_")) << text;
}

TEST(PrometheusMetrics, ServesMetricsOverHttpOnAPickedPort) {
  auto m = PrometheusMetrics::Create("127.0.0.1:0", NoNvml());
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string bound = (*m)->BoundAddress();
  ASSERT_TRUE(absl::StartsWith(bound, "127.0.0.1:")) << bound;
  EXPECT_NE(bound, "127.0.0.1:0");
  (*m)->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  auto got = kbench::testing::HttpGet(bound, "/metrics");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->status, 200);
  EXPECT_THAT(FindSample(got->body, "kbench_jobs_submitted_total",
                         {{"kind", "benchmark"}, {"device", "cpu"}}),
              Optional(1.0));
  EXPECT_TRUE(FamilyNames(got->body).count("kbench_build_info"));
}

TEST(PrometheusMetrics, ServesNothingWithAnEmptyAddress) {
  auto m = NewMetrics();
  EXPECT_EQ(m->BoundAddress(), "");
}

TEST(PrometheusMetrics, RefusesAPortAlreadyInUse) {
  auto first = PrometheusMetrics::Create("127.0.0.1:0", NoNvml());
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = PrometheusMetrics::Create((*first)->BoundAddress(), NoNvml());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.status().message()), HasSubstr("--metrics-listen"));
  EXPECT_THAT(std::string(second.status().message()), HasSubstr((*first)->BoundAddress()));
}

TEST(ValidateListenAddress, AcceptsIpv4Ipv6AndLocalhostWithPort) {
  for (const char* ok :
       {"127.0.0.1:0", "0.0.0.0:9400", "localhost:65535", "10.1.2.3:1", "[::1]:9400", "[::]:0"}) {
    EXPECT_TRUE(ValidateListenAddress(ok).ok()) << ok;
  }
}

TEST(ValidateListenAddress, RejectsMalformedAddressesNamingTheFlag) {
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1:", "127.0.0.1:abc", "127.0.0.1:70000", "127.0.0.1:-1",
        "999.1.1.1:80", "1.2.3:80", "[::1", "[:::1]:80", "::1:80", "example.com:80", ":9400"}) {
    absl::Status s = ValidateListenAddress(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr("--metrics-listen")) << bad;
    EXPECT_THAT(std::string(s.message()), HasSubstr(bad)) << bad;
  }
}

TEST(PrometheusMetrics, CreateRejectsMalformedAddress) {
  auto m = Metrics::Create("999.1.1.1:80");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
}

// promtool (Debian's prometheus package) lints the exposition: naming, units, _total on
// counters, help text. Every series is populated, GPU gauges included (from a fake source), so
// nothing escapes the lint.
TEST(PrometheusMetrics, ScrapePassesPromtoolCheckMetrics) {
  const std::string promtool = KBENCH_PROMTOOL;
  auto state = std::make_shared<kbench::testing::FakeGpuSource::State>();
  state->by_uuid["GPU-1"] = {{0, "GPU-1", "NVIDIA H100 80GB HBM3"}, kbench::testing::FullSample()};
  auto m = PrometheusMetrics::Create("", [state] {
    return absl::StatusOr<std::unique_ptr<GpuSource>>(
        std::make_unique<kbench::testing::FakeGpuSource>(state));
  });
  ASSERT_TRUE(m.ok());
  (*m)->JobSubmitted(kbench::JobKind::kBenchmark, "cpu");
  (*m)->JobFinished(kbench::JobKind::kBenchmark, "cpu", "succeeded");
  (*m)->SetQueueDepth("cpu", 1);
  (*m)->ObserveQueueWait("cpu", 1);
  (*m)->ObserveRunDuration(kbench::JobKind::kBenchmark, "cpu", 1);
  (*m)->ExecutorRestarted("cpu", kbench::ExecutorFailure::kSignal);
  (*m)->ObserveRpc("SubmitJob", "OK", 0.01);
  (*m)->SetArtifactBytes(1);
  (*m)->AddGpu("cuda:0", "GPU-1", "", 0);

  auto checked = kbench::testing::PromtoolCheckMetrics(promtool, (*m)->ScrapeText());
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->unexpected, "") << checked->output;
}

}  // namespace
}  // namespace kbench::metrics
