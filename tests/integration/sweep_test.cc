// Integration: sweeps on the cpu device against a real kbenchd, through gRPC and kbctl: the
// table, CSV, JSON, plots and an HTML report that headless Chromium renders; cancellation as a
// whole; deletion (kbctl sweep rm) with its points and report; validation of every point at
// submit; a restart in the middle.
#include <sys/wait.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/report/bounded_process.h"
#include "common/report/html_report.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

namespace kbench::testing {
namespace {

namespace fs = std::filesystem;

// gelu's two host variants over dim0 (6 values) x dim1 (2): 12 tiny points. (Not reduce:
// full_host's 1e-5 tolerance fails on some seeds' near-zero sums, a catalogue matter.)
v1::SweepSpec TwelvePoints() {
  v1::SweepSpec spec;
  *spec.mutable_base() = QuickCpuSpec();
  spec.mutable_base()->set_kernel("gelu");
  spec.mutable_base()->clear_variants();
  spec.mutable_base()->add_variants("tanh_host");
  spec.mutable_base()->add_variants("erf_host");
  spec.mutable_base()->clear_shape();
  v1::SweepAxis* cols = spec.add_axes();
  cols->set_name("dim0");
  cols->set_values("16:512:*2");
  v1::SweepAxis* rows = spec.add_axes();
  rows->set_name("dim1");
  rows->set_values("8,16");
  return spec;
}

absl::StatusOr<v1::Sweep> SubmitSweep(v1::KbenchService::Stub& stub, const v1::SweepSpec& spec) {
  grpc::ClientContext ctx;
  v1::SubmitSweepRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitSweepResponse response;
  const grpc::Status s = stub.SubmitSweep(&ctx, request, &response);
  if (!s.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  }
  return response.sweep();
}

v1::GetSweepResponse GetSweep(v1::KbenchService::Stub& stub, const std::string& id) {
  grpc::ClientContext ctx;
  v1::GetSweepRequest request;
  request.set_sweep_id(id);
  request.set_with_jobs(true);
  v1::GetSweepResponse response;
  EXPECT_TRUE(stub.GetSweep(&ctx, request, &response).ok());
  return response;
}

v1::GetSweepResponse WaitForSweepState(v1::KbenchService::Stub& stub, const std::string& id,
                                       v1::SweepState state) {
  v1::GetSweepResponse last;
  for (int i = 0; i < 600; ++i) {  // 60 s
    last = GetSweep(stub, id);
    if (last.sweep().state() == state) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ADD_FAILURE() << "sweep " << id << " never reached " << v1::SweepState_Name(state) << ": "
                << last.sweep().DebugString();
  return last;
}

struct ShellRun {
  int exit_code = -1;
  std::string out;
};

// Runs a shell command line (bounded by `timeout` inside it), returning its stdout.
ShellRun Shell(const std::string& command) {
  ShellRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.out.append(buf.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

class SweepTest : public ::testing::Test {
 protected:
  ShellRun Kbctl(const std::string& args) {
    return Shell(absl::StrCat("timeout 120 ", KBCTL_PATH, " --server ", daemon_->address(), " ",
                              args, " 2>>", dir_.path(), "/kbctl.err"));
  }

  TempDir dir_;
  TempDir out_;
  std::unique_ptr<Daemon> daemon_ = std::make_unique<Daemon>(dir_.path());
};

TEST_F(SweepTest, TwelvePointsGiveTablesPlotsAndAReportChromiumRenders) {
  const ShellRun submitted = Kbctl(
      "sweep gelu --variants tanh_host,erf_host --axis dim0=16:512:*2 --axis dim1=8,16 "
      "--device cpu --min-time 0.01 --min-samples 5 --max-noise 0.99 --no-wait");
  ASSERT_EQ(submitted.exit_code, 0) << ReadFile(dir_.path() + "/kbctl.err");
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  ASSERT_EQ(id.rfind("s-", 0), 0u) << submitted.out;

  const ShellRun watched = Kbctl(absl::StrCat("watch ", id));
  ASSERT_EQ(watched.exit_code, 0) << watched.out << ReadFile(dir_.path() + "/kbctl.err");
  EXPECT_NE(ReadFile(dir_.path() + "/kbctl.err").find("12/12 points done"), std::string::npos);
  const v1::GetSweepResponse got = GetSweep(daemon_->stub(), id);
  ASSERT_EQ(got.sweep().state(), v1::SWEEP_STATE_DONE) << got.sweep().error();
  ASSERT_EQ(got.jobs_size(), 12);
  for (const v1::Job& job : got.jobs()) {
    EXPECT_EQ(job.state(), v1::JOB_STATE_SUCCEEDED) << job.id() << ": " << job.error();
  }
  EXPECT_TRUE(got.sweep().error().empty()) << got.sweep().error();

  const std::string dir = out_.path() + "/artifacts";
  ASSERT_EQ(Kbctl(absl::StrCat("sweep get ", id, " --dir ", dir)).exit_code, 0);
  for (const char* name : {"sweep.csv", "sweep.json", "time.svg", "time.png", "bandwidth.svg",
                           "speedup.svg", "report.html"}) {
    EXPECT_GT(fs::exists(fs::path(dir) / name) ? fs::file_size(fs::path(dir) / name) : 0, 0u)
        << name;
  }
  // CSV: a header and a line per point and variant.
  std::istringstream csv(ReadFile(fs::path(dir) / "sweep.csv"));
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 1 + 12 * 2);
  // JSON: the jobs' own medians, point by point.
  const nlohmann::json doc = nlohmann::json::parse(ReadFile(fs::path(dir) / "sweep.json"));
  ASSERT_EQ(doc["points"].size(), 12u);
  for (int i = 0; i < 12; ++i) {
    const v1::VariantResult& r = got.jobs(i).result().variants(1);
    EXPECT_DOUBLE_EQ(doc["points"][i]["variants"][1]["median_seconds"].get<double>(),
                     r.stats().median_seconds());
  }
  EXPECT_EQ(doc["points"][11]["values"]["dim0"], "512");

  ASSERT_EQ(Kbctl(absl::StrCat("report ", id, " -f ", out_.path(), "/report.html")).exit_code, 0);
  const std::string chromium = report::FindProgram("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
  const std::string flags =
      absl::StrCat("--headless --no-sandbox --disable-gpu --user-data-dir=", out_.path(),
                   "/chrome --window-size=412,915");
  const std::string url = absl::StrCat("file://", out_.path(), "/report.html");
  const ShellRun shot =
      Shell(absl::StrCat("timeout 90 ", chromium, " ", flags, " --screenshot=", out_.path(),
                         "/phone.png ", url, " 2>/dev/null"));
  EXPECT_EQ(shot.exit_code, 0);
  EXPECT_GT(fs::exists(out_.path() + "/phone.png") ? fs::file_size(out_.path() + "/phone.png") : 0,
            1000u);
  const ShellRun dom =
      Shell(absl::StrCat("timeout 90 ", chromium, " ", flags, " --dump-dom ", url, " 2>/dev/null"));
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_NE(dom.out.find("<svg"), std::string::npos);
  for (const v1::Job& job : got.jobs()) {
    for (const v1::VariantResult& r : job.result().variants()) {
      EXPECT_NE(dom.out.find(report::FormatSeconds(r.stats().median_seconds())), std::string::npos)
          << job.id() << " " << r.variant();
    }
  }
}

// Issue 28: a job's report is a benchmark record — each median with its interval, samples and
// noise, how it was measured and the command that repeats it, plots of its samples with their
// unit on the axis — and at 1400 px nothing in it overflows: no table wider than its box, no
// plot wider than its frame (measured by Chromium on a copy of the page with a probe script).
TEST_F(SweepTest, AJobsReportIsARecordThatFitsA1400PixelWindow) {
  const ShellRun bench = Kbctl(
      "-o json compare gelu --variants tanh_host,erf_host --shape 4096 --device cpu "
      "--min-time 0.05 --min-samples 20 --max-noise 0.99");
  ASSERT_EQ(bench.exit_code, 0) << ReadFile(dir_.path() + "/kbctl.err");
  const nlohmann::json doc = nlohmann::json::parse(bench.out);
  const std::string id = (doc.contains("job") ? doc["job"] : doc)["id"].get<std::string>();
  const std::string page = out_.path() + "/job.html";
  ASSERT_EQ(Kbctl(absl::StrCat("report ", id, " -f ", page)).exit_code, 0)
      << ReadFile(dir_.path() + "/kbctl.err");
  const std::string html = ReadFile(page);
  EXPECT_NE(html.find("<th>95 % interval</th>"), std::string::npos);
  EXPECT_NE(html.find("<dt>reproduce</dt><dd>kbctl repro " + id + "</dd>"), std::string::npos);
  EXPECT_NE(html.find("<dt>kbench version</dt>"), std::string::npos);
  if (report::FindProgram("gnuplot").empty()) {
    EXPECT_NE(html.find("gnuplot is not installed"), std::string::npos);
  } else {
    EXPECT_NE(html.find("samples in the order taken"), std::string::npos);
    EXPECT_NE(html.find("distribution of the samples"), std::string::npos);
    EXPECT_TRUE(html.find("time per launch (µs)") != std::string::npos ||
                html.find("time per launch (ms)") != std::string::npos)
        << "no time axis label with a unit";
  }

  const std::string chromium = report::FindProgram("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
  const std::string probe = R"(<script>
const bad = [];
document.querySelectorAll('.scroll').forEach((box, i) => {
  if (box.scrollWidth > box.clientWidth + 1) bad.push('table' + i + ':' + box.scrollWidth + '>' + box.clientWidth);
});
document.querySelectorAll('figure').forEach((f, i) => {
  const svg = f.querySelector('svg');
  if (svg && svg.getBoundingClientRect().width > f.clientWidth + 1) bad.push('plot' + i);
});
document.body.setAttribute('data-layout', bad.length ? bad.join(',') : 'ok');
</script></body>)";
  std::string probed = html;
  probed.replace(probed.rfind("</body>"), 7, probe);
  const std::string probed_page = out_.path() + "/probed.html";
  std::ofstream(probed_page) << probed;
  const ShellRun dom = Shell(absl::StrCat(
      "timeout 90 ", chromium,
      " --headless --no-sandbox --disable-gpu --user-data-dir=", out_.path(),
      "/chrome1400 --window-size=1400,1000 --dump-dom file://", probed_page, " 2>/dev/null"));
  ASSERT_EQ(dom.exit_code, 0);
  EXPECT_NE(dom.out.find("data-layout=\"ok\""), std::string::npos)
      << dom.out.substr(dom.out.find("<body"), 200);
  // The rendered page's axis labels carry their unit, as Chromium reads them.
  if (!report::FindProgram("gnuplot").empty()) {
    EXPECT_TRUE(dom.out.find("time per launch (µs)") != std::string::npos ||
                dom.out.find("time per launch (ms)") != std::string::npos);
    EXPECT_EQ(dom.out.find("ss)"), std::string::npos);
  }
}

TEST_F(SweepTest, CancellingASweepCancelsItsRemainingPoints) {
  v1::SweepSpec spec = TwelvePoints();
  // Each point samples for 2 s: the cancel finds one running and the rest queued.
  *spec.mutable_base()->mutable_stopping() = LongCpuSpec(2).stopping();
  absl::StatusOr<v1::Sweep> sweep = SubmitSweep(daemon_->stub(), spec);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  WaitFor(daemon_->stub(), sweep->points(0).job_id(),
          [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });

  const ShellRun cancelled = Kbctl(absl::StrCat("cancel ", sweep->id()));
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.out;
  const v1::GetSweepResponse done =
      WaitForSweepState(daemon_->stub(), sweep->id(), v1::SWEEP_STATE_CANCELLED);
  EXPECT_EQ(done.sweep().points_done(), 12);
  EXPECT_GE(done.sweep().points_cancelled(), 11);
  for (int i = 1; i < 12; ++i) {
    EXPECT_EQ(done.jobs(i).state(), v1::JOB_STATE_CANCELLED) << i;
  }
  // A cancelled sweep still gets its (partial) report.
  EXPECT_GT(done.sweep().artifacts_size(), 0);
}

// kbctl sweep rm: refused while a point has not ended (naming it), then, once the sweep was
// cancelled and reported, the sweep, its points' jobs and its report files all go.
TEST_F(SweepTest, SweepRmDeletesAnEndedSweepWithItsPointsAndReportButNotARunningOne) {
  v1::SweepSpec spec = TwelvePoints();
  *spec.mutable_base()->mutable_stopping() = LongCpuSpec(2).stopping();
  absl::StatusOr<v1::Sweep> sweep = SubmitSweep(daemon_->stub(), spec);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  WaitFor(daemon_->stub(), sweep->points(0).job_id(),
          [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING; });
  grpc::ClientContext ctx;
  v1::DeleteSweepRequest request;
  request.set_sweep_id(sweep->id());
  v1::DeleteSweepResponse response;
  const grpc::Status refused = daemon_->stub().DeleteSweep(&ctx, request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refused.error_message().find(sweep->points(0).job_id() + " (running)"),
            std::string::npos)
      << refused.error_message();

  ASSERT_EQ(Kbctl(absl::StrCat("cancel ", sweep->id())).exit_code, 0);
  const v1::GetSweepResponse done =
      WaitForSweepState(daemon_->stub(), sweep->id(), v1::SWEEP_STATE_CANCELLED);
  ASSERT_GT(done.sweep().artifacts_size(), 0);
  const fs::path report_dir = fs::path(dir_.path()) / "sweeps" / sweep->id();
  ASSERT_TRUE(fs::exists(report_dir));

  const ShellRun removed = Kbctl(absl::StrCat("sweep rm ", sweep->id()));
  ASSERT_EQ(removed.exit_code, 0) << removed.out;
  EXPECT_NE(removed.out.find("with its 12 point job(s)"), std::string::npos) << removed.out;
  EXPECT_FALSE(fs::exists(report_dir));
  grpc::ClientContext get_ctx;
  v1::GetSweepRequest get;
  get.set_sweep_id(sweep->id());
  v1::GetSweepResponse gone;
  EXPECT_EQ(daemon_->stub().GetSweep(&get_ctx, get, &gone).error_code(),
            grpc::StatusCode::NOT_FOUND);
  for (const v1::SweepPoint& point : sweep->points()) {
    grpc::ClientContext job_ctx;
    v1::GetJobRequest job;
    job.set_job_id(point.job_id());
    v1::GetJobResponse got;
    EXPECT_EQ(daemon_->stub().GetJob(&job_ctx, job, &got).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  const ShellRun again = Kbctl(absl::StrCat("sweep rm ", sweep->id()));
  EXPECT_NE(again.exit_code, 0) << "a second rm names a sweep that is gone";
}

TEST_F(SweepTest, SubmitValidatesEveryPointAndQueuesNothingOnError) {
  struct Case {
    const char* axis;
    const char* values;
    absl::StatusCode code;
    const char* says;
  };
  for (const Case& c : {Case{"colz", "1,2", absl::StatusCode::kInvalidArgument, "colz"},
                        Case{"dim0", "1:5000", absl::StatusCode::kResourceExhausted, "1000"},
                        Case{"dim0", "16,0", absl::StatusCode::kInvalidArgument, "point 1"},
                        Case{"dtype", "f32,bf16", absl::StatusCode::kUnknown, "point 1"}}) {
    v1::SweepSpec spec = TwelvePoints();
    spec.clear_axes();
    spec.add_axes()->set_name(c.axis);
    spec.mutable_axes(0)->set_values(c.values);
    absl::StatusOr<v1::Sweep> sweep = SubmitSweep(daemon_->stub(), spec);
    ASSERT_FALSE(sweep.ok()) << c.axis << "=" << c.values;
    if (c.code != absl::StatusCode::kUnknown) {
      EXPECT_EQ(sweep.status().code(), c.code);
    }
    EXPECT_NE(sweep.status().message().find(c.says), std::string::npos) << sweep.status();
  }
  v1::SweepSpec zip = TwelvePoints();
  zip.add_zip("dim0");
  zip.add_zip("dim1");
  const absl::Status unequal = SubmitSweep(daemon_->stub(), zip).status();
  EXPECT_EQ(unequal.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unequal.message().find("equal lengths"), std::string::npos) << unequal;

  grpc::ClientContext ctx;
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(daemon_->stub().ListJobs(&ctx, v1::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
}

TEST_F(SweepTest, ASweepSurvivesADaemonRestart) {
  v1::SweepSpec spec = TwelvePoints();
  spec.mutable_axes(0)->set_values("16,32");  // 4 points of 0.3 s: the stop finds some queued
  spec.mutable_base()->mutable_stopping()->set_min_time_seconds(0.3);
  absl::StatusOr<v1::Sweep> sweep = SubmitSweep(daemon_->stub(), spec);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  ASSERT_EQ(sweep->points_total(), 4);
  daemon_->Stop(SIGTERM);
  daemon_.reset();

  daemon_ = std::make_unique<Daemon>(dir_.path());
  const v1::GetSweepResponse done =
      WaitForSweepState(daemon_->stub(), sweep->id(), v1::SWEEP_STATE_DONE);
  ASSERT_EQ(done.sweep().points_size(), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(done.sweep().points(i).job_id(), sweep->points(i).job_id());
    EXPECT_EQ(done.jobs(i).state(), v1::JOB_STATE_SUCCEEDED);
  }
  EXPECT_GT(done.sweep().artifacts_size(), 0);
}

}  // namespace
}  // namespace kbench::testing
