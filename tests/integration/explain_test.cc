// Integration: `kbctl diff --explain` against a real kbenchd on the cpu device. Profiles need a
// CUDA device (CUPTI), so the explanation says that, submits nothing, and the exit code stays
// the verdicts'. The GPU case (a spilling user kernel) is tests/gpu/explain_gpu_test.cc.
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

class ExplainTest : public ::testing::Test {
 protected:
  KbctlRun Kbctl(const std::string& args) { return RunKbctl(daemon_.address(), args, dir_.path()); }

  std::string Bench(const std::string& shape) {
    KbctlRun run = Kbctl("-o json bench square --variant host_loop --shape " + shape +
                         " --device cpu --min-samples 20 --max-noise 0.99 --min-time 0.2");
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    if (run.exit_code != 0) return "";
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    return (doc.contains("job") ? doc["job"] : doc)["id"].get<std::string>();
  }

  size_t JobCount() {
    KbctlRun jobs = Kbctl("-o json jobs");
    EXPECT_EQ(jobs.exit_code, 0) << jobs.err;
    return nlohmann::json::parse(jobs.out).value("jobs", nlohmann::json::array()).size();
  }

  TempDir dir_;
  Daemon daemon_{dir_.path()};
};

TEST_F(ExplainTest, SaysProfilingNeedsAGpuAndKeepsTheVerdictsExitCode) {
  // Sixteen times the elements: SLOWER, whatever the core's noise.
  const std::string small = Bench("128x128");
  // 64x the work: a fresh key calls only a change beyond about 10x (docs/verdicts.md).
  const std::string large = Bench("1024x1024");
  ASSERT_FALSE(small.empty() || large.empty());

  KbctlRun diff = Kbctl("diff " + small + " " + large + " --explain");
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  EXPECT_NE(diff.out.find("SLOWER"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("Why host_loop is SLOWER"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("Not measured: everything: profiling needs a CUDA device (CUPTI); job " +
                          small + " ran on cpu"),
            std::string::npos)
      << diff.out;
  EXPECT_EQ(JobCount(), 2u) << "no profile job may be submitted for a cpu job";

  // The same as a page (-f), beside the table; --fail-on still sets the exit code.
  const std::string page = dir_.path() + "/diff.html";
  KbctlRun fail_on =
      Kbctl("diff " + small + " " + large + " --explain --fail-on slower -f " + page);
  EXPECT_EQ(fail_on.exit_code, 1) << fail_on.out << fail_on.err;
  EXPECT_NE(fail_on.err.find("kbctl: wrote " + page), std::string::npos) << fail_on.err;
  std::stringstream html;
  html << std::ifstream(page).rdbuf();
  EXPECT_NE(html.str().find("<td class=\"l fail\">SLOWER</td>"), std::string::npos) << html.str();
  EXPECT_NE(html.str().find("Why host_loop is SLOWER"), std::string::npos) << html.str();
  EXPECT_NE(html.str().find("<h4>Not measured</h4><ul><li>everything: profiling needs a CUDA "
                            "device (CUPTI)"),
            std::string::npos)
      << html.str();
}

TEST_F(ExplainTest, PrintsOneJsonDocumentWithTheComparisonAndItsExplanations) {
  const std::string small = Bench("128x128");
  // 64x the work: a fresh key calls only a change beyond about 10x (docs/verdicts.md).
  const std::string large = Bench("1024x1024");
  ASSERT_FALSE(small.empty() || large.empty());
  KbctlRun diff = Kbctl("-o json diff " + large + " " + small + " --explain");
  ASSERT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  const nlohmann::json doc = nlohmann::json::parse(diff.out);
  ASSERT_EQ(doc["comparison"]["variants"].size(), 1u) << diff.out;
  EXPECT_EQ(doc["comparison"]["variants"][0]["verdict"], "VERDICT_FASTER") << diff.out;
  ASSERT_EQ(doc["explanations"].size(), 1u) << diff.out;
  const nlohmann::json& e = doc["explanations"][0];
  EXPECT_EQ(e["verdict"], "VERDICT_FASTER");
  EXPECT_EQ(e["baseline_profile_job_id"], "");
  ASSERT_EQ(e["not_measured"].size(), 1u) << diff.out;
  EXPECT_NE(e["not_measured"][0].get<std::string>().find("profiling needs a CUDA device"),
            std::string::npos);
  EXPECT_TRUE(e["findings"].empty());
}

TEST_F(ExplainTest, ExplainsOnlyChangedVerdictsUnlessAskedForAll) {
  const std::string a = Bench("64x64");
  ASSERT_FALSE(a.empty());
  // The same job on both sides is never FASTER or SLOWER (a fresh key's verdict is UNSURE).
  KbctlRun same = Kbctl("diff " + a + " " + a + " --min-effect 100 --explain");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("Nothing to explain: no variant is FASTER or SLOWER"), std::string::npos)
      << same.out;
  KbctlRun all = Kbctl("diff " + a + " " + a + " --min-effect 100 --explain-all");
  EXPECT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_NE(all.out.find("Why host_loop is "), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("Why host_loop is SLOWER"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("Why host_loop is FASTER"), std::string::npos) << all.out;
}

}  // namespace
}  // namespace kbench::testing
