// Integration (issue 29, item 3): kbctl repro and kbctl bundle against real kbenchds on the cpu
// device: a job run and reproduced (verdict and drift list shown), a bundle exported, checked
// and reproduced on a second kbenchd with another data directory, a tampered bundle refused.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

class ReproTest : public ::testing::Test {
 protected:
  KbctlRun Kbctl(Daemon& daemon, const std::string& args) {
    return RunKbctl(daemon.address(), args, dir_.path());
  }

  std::string Bench(Daemon& daemon) {
    KbctlRun run = Kbctl(daemon,
                         "-o json bench square --variant host_loop --shape 128x128 --device cpu "
                         "--min-samples 10 --max-noise 0.99 --min-time 0.1");
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    if (run.exit_code != 0) return "";
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    return (doc.contains("job") ? doc["job"] : doc)["id"].get<std::string>();
  }

  size_t JobCount(Daemon& daemon) {
    KbctlRun jobs = Kbctl(daemon, "-o json jobs");
    EXPECT_EQ(jobs.exit_code, 0) << jobs.err;
    return nlohmann::json::parse(jobs.out).value("jobs", nlohmann::json::array()).size();
  }

  TempDir dir_;
  TempDir data_a_;
  Daemon a_{data_a_.path()};
};

TEST_F(ReproTest, ReRunsAJobAndShowsItsVerdictAndDrift) {
  const std::string job = Bench(a_);
  ASSERT_FALSE(job.empty());
  KbctlRun repro = Kbctl(a_, "repro " + job);
  ASSERT_EQ(repro.exit_code, 0) << repro.out << repro.err;
  EXPECT_NE(repro.out.find("Reproduction of " + job + " (cpu) as j-"), std::string::npos)
      << repro.out;
  EXPECT_NE(repro.out.find("host_loop"), std::string::npos) << repro.out;
  // The same kbenchd on the same host: nothing of the conditions changed.
  EXPECT_NE(repro.out.find("Environment: no field drifted"), std::string::npos) << repro.out;
  EXPECT_EQ(JobCount(a_), 2u);

  KbctlRun json = Kbctl(a_, "-o json repro " + job + " --same-seed");
  ASSERT_EQ(json.exit_code, 0) << json.out << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["original_job_id"], job);
  EXPECT_EQ(doc["reproduction"]["state"], "JOB_STATE_SUCCEEDED");
  ASSERT_EQ(doc["comparison"]["variants"].size(), 1u) << json.out;
  const std::string verdict = doc["comparison"]["variants"][0]["verdict"];
  // A job against a re-run of itself is never called FASTER or SLOWER on the cpu device.
  EXPECT_TRUE(verdict == "VERDICT_SAME" || verdict == "VERDICT_UNSURE") << verdict;
  EXPECT_TRUE(doc["drift"].is_array() && doc["drift"].empty()) << json.out;
  KbctlRun original = Kbctl(a_, "-o json get " + job);
  ASSERT_EQ(original.exit_code, 0) << original.err;
  EXPECT_EQ(doc["reproduction"]["result"]["environment"]["seed"],
            nlohmann::json::parse(original.out)["result"]["environment"]["seed"]);
}

TEST_F(ReproTest, RefusesADeviceTheServerDoesNotHave) {
  const std::string job = Bench(a_);
  ASSERT_FALSE(job.empty());
  KbctlRun repro = Kbctl(a_, "repro " + job + " --device cuda:7");
  EXPECT_EQ(repro.exit_code, 1) << repro.out << repro.err;
  EXPECT_NE(repro.err.find("ran on cuda:7, which this kbenchd does not have (it has cpu"),
            std::string::npos)
      << repro.err;
  EXPECT_EQ(JobCount(a_), 1u) << "nothing may be submitted";
}

TEST_F(ReproTest, ABundleReproducesOnAnotherKbenchd) {
  const std::string job = Bench(a_);
  ASSERT_FALSE(job.empty());
  const std::string file = dir_.path() + "/job.kbench";
  KbctlRun bundle = Kbctl(a_, "bundle " + job + " -f " + file);
  ASSERT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
  ASSERT_TRUE(std::filesystem::exists(file));

  TempDir data_b;
  Daemon b(data_b.path());
  KbctlRun repro = Kbctl(b, "repro " + file);
  ASSERT_EQ(repro.exit_code, 0) << repro.out << repro.err;
  EXPECT_NE(repro.out.find("Reproduction of " + job), std::string::npos) << repro.out;
  EXPECT_NE(repro.out.find("Environment"), std::string::npos) << repro.out;
  EXPECT_EQ(JobCount(b), 1u);
}

TEST_F(ReproTest, ATamperedBundleIsRefusedNamingTheMember) {
  const std::string job = Bench(a_);
  ASSERT_FALSE(job.empty());
  const std::string file = dir_.path() + "/job.kbench";
  ASSERT_EQ(Kbctl(a_, "bundle " + job + " -f " + file).exit_code, 0);
  // Unpack, make the stored samples faster, pack again with the manifest unchanged.
  const std::string x = dir_.path() + "/x";
  const std::string sh = "mkdir " + x + " && tar -xzf " + file + " -C " + x + " && echo 1e-9 >> " +
                         x + "/samples/host_loop.txt && cd " + x +
                         " && find . -type f -printf '%P\\n' | tar -czf " + file + " -T -";
  ASSERT_EQ(std::system(sh.c_str()), 0) << sh;

  TempDir data_b;
  Daemon b(data_b.path());
  KbctlRun repro = Kbctl(b, "repro " + file);
  EXPECT_EQ(repro.exit_code, 1) << repro.out << repro.err;
  EXPECT_NE(repro.err.find("member samples/host_loop.txt does not match its sha256"),
            std::string::npos)
      << repro.err;
  EXPECT_EQ(JobCount(b), 0u) << "a tampered bundle submits nothing";
}

#ifdef KBENCH_TEST_CUDA_TOOLKIT
// A job's own kernel: its owner's bundle carries the code as the job ran it, read back from
// kbenchd (GetJobRequest.include_code), with no --code.
TEST_F(ReproTest, ABundleOfAUserKernelCarriesItsCodeFromTheRecord) {
  const std::string source = dir_.path() + "/sq.cu";
  const std::string code =
      "extern \"C\" __global__ void square_kernel(const float* x, float* y, long long n) {\n"
      "  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = x[i] * x[i];\n}\n";
  { std::ofstream(source) << code; }
  KbctlRun compiled =
      Kbctl(a_, "-o json compile square --source " + source +
                    " --entry square_kernel --arch sm_90a --grid 'cdiv(n,256)' --block 256");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.out << compiled.err;
  const nlohmann::json doc = nlohmann::json::parse(compiled.out);
  const std::string job = (doc.contains("job") ? doc["job"] : doc)["id"].get<std::string>();
  const std::string file = dir_.path() + "/uk.kbench";
  KbctlRun bundle = Kbctl(a_, "bundle " + job + " -f " + file);
  ASSERT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
  const std::string x = dir_.path() + "/uk";
  const std::string sh = "mkdir " + x + " && tar -xzf " + file + " -C " + x;
  ASSERT_EQ(std::system(sh.c_str()), 0) << sh;
  std::ifstream in(x + "/code/@user");
  const std::string carried((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(carried, code);
}
#endif

TEST_F(ReproTest, SaysWhatItTakesWhenGivenNeitherJobNorBundle) {
  KbctlRun repro = Kbctl(a_, "repro no-such-file.kbench");
  EXPECT_EQ(repro.exit_code, 2) << repro.out << repro.err;
  EXPECT_NE(repro.err.find("is neither a job id (j-...) nor a bundle file"), std::string::npos)
      << repro.err;
}

}  // namespace
}  // namespace kbench::testing
