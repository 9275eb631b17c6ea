// Integration: kbctl against a real kbenchd — what a person and a script see, and exit codes.
#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

struct KbctlRun {
  int exit_code = -1;
  std::string out;
};

class KbctlTest : public ::testing::Test {
 protected:
  // Runs kbctl with `args` against the daemon; stdout captured, stderr left to the test log.
  KbctlRun Kbctl(const std::string& args) {
    const std::string cmd = std::string(KBCTL_PATH) + " --server " + daemon_.address() + " " + args;
    KbctlRun run;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return run;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) run.out.append(buf.data(), n);
    const int status = pclose(p);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
  }

  static constexpr const char* kQuick =
      "bench square --variant host_loop --shape 128x128 --device cpu --min-time 0.01 "
      "--min-samples 5 --max-noise 0.99";

  TempDir dir_;
  Daemon daemon_{dir_.path()};
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
  KbctlRun get = Kbctl("artifacts get " + id + " samples.csv -o " + file);
  EXPECT_EQ(get.exit_code, 0) << get.out;
  FILE* f = std::fopen(file.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char header[64] = {};
  ASSERT_NE(std::fgets(header, sizeof(header), f), nullptr);
  std::fclose(f);
  EXPECT_EQ(std::string(header).rfind("variant,sample,seconds", 0), 0u);
}

TEST_F(KbctlTest, ExitCodesSeparateUsageRpcAndJobFailures) {
  EXPECT_EQ(Kbctl("bench square --variant host_loop --shape 0x5").exit_code, 2);
  EXPECT_EQ(Kbctl("get j-doesnotexist").exit_code, 3);
  EXPECT_EQ(Kbctl("bench square --variant host_loop --device cuda:9").exit_code, 3);
}

}  // namespace
}  // namespace kbench::testing
