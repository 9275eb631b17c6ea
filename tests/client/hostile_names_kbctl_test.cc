// kbctl report JOB and kbctl history --plot (issue 24, item 2) render what the server sends on
// the user's workstation, so a variant name that a database written before the name rule holds
// (or a hostile server) sends must come out as text in the HTML and the plot, never as markup
// or a command: real gnuplot draws the plot when it is installed.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/report/bounded_process.h"
#include "gtest/gtest.h"
#include "tests/client/fake_kbench_server.h"
#include "tests/client/run_kbctl.h"
#include "tests/hostile_names.h"

namespace kbench::client {
namespace {

TEST(KbctlReport, RendersHostileVariantNamesAsText) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbctl_hostile_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::string> names = kbench::testing::HostileNames((dir / "ran").string());
  v1::Job job;
  job.set_id("j-hostile");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_device(names[7]);
  job.mutable_spec()->set_kernel("softmax");
  for (const std::string& name : names) {
    v1::VariantResult* r = job.mutable_result()->add_variants();
    r->set_variant(name);
    r->mutable_stats()->set_median_seconds(1e-3);
    r->mutable_correctness()->set_checked(true);
    r->mutable_correctness()->set_detail(name);
  }
  testing::FakeKbenchServer server;
  server.AddJob(job);
  const std::filesystem::path out = dir / "report.html";
  const Result r = Kbctl({"--server", server.address(), "report", "j-hostile", "-f", out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(out);
  const std::string html(std::istreambuf_iterator<char>(in), {});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("@&lt;/script&gt;&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("@bq`touch"), std::string::npos);  // the name, shown as it is
  EXPECT_FALSE(std::filesystem::exists(dir / "ran"));
  std::filesystem::remove_all(dir);
}

TEST(KbctlHistoryPlot, DrawsHostileNamesAsTextAndRunsNothing) {
  if (report::FindProgram("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbctl_history_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::string> names = kbench::testing::HostileNames((dir / "ran").string());
  testing::FakeKbenchServer server;
  for (size_t i = 0; i < names.size(); ++i) {
    v1::HistoryEntry* e = server.history().add_entries();
    e->set_job_id(names[i]);
    e->mutable_key()->set_kernel("softmax");
    e->mutable_key()->set_variant(names[i]);
    e->mutable_key()->set_device_model(names[(i + 3) % names.size()]);
    e->mutable_finish_time()->set_seconds(1700000000 + static_cast<int64_t>(i));
    e->set_median_seconds(1e-3);
    e->set_correct(true);
  }
  const std::filesystem::path out = dir / "history.svg";
  const Result r =
      Kbctl({"--server", server.address(), "history", "softmax", "--plot", out.string()});
  EXPECT_FALSE(std::filesystem::exists(dir / "ran"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(out);
  const std::string svg(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(svg.find("@bq`touch"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kbench::client
