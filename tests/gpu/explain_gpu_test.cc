// GPU test of `kbctl diff --explain` (issue 26, item 6) through a real kbenchd: a user kernel
// for `add` benchmarked as written and again with -maxrregcount=32, so that it spills; the
// explanation must name the registers and the spills, and, where the tools are on the host, the
// local-memory traffic Nsight Compute measured and the STL/LDL the SASS gained. Labelled `gpu`;
// skips without a CUDA device.
#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/integration/daemon.h"

namespace kbench::testing {
namespace {

// 32 elements a thread, every load issued before the first store: without __restrict__ the
// compiler may not store early, so 32 sums stay live at once, more than 32 registers hold.
constexpr char kBlockedAdd[] = R"(
extern "C" __global__ void add_blocked(const float* a, const float* b, float* out, long long n) {
  const long long base = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * 32;
  float s[32];
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    const long long i = base + k;
    s[k] = i < n ? a[i] + b[i] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < 32; ++k) {
    const long long i = base + k;
    if (i < n) out[i] = s[k];
  }
}
)";

// `kbctl diff --explain` runs four profiles (two under ncu) and two compiles.
constexpr int kExplainSeconds = 540;

class ExplainGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    KbctlRun devices = Kbctl("devices");
    if (devices.out.find("cuda:0") == std::string::npos) GTEST_SKIP() << "no CUDA device";
    source_ = dir_.path() + "/add_blocked.cu";
    std::ofstream(source_) << kBlockedAdd;
  }
  KbctlRun Kbctl(const std::string& args, int seconds = 120) {
    return RunKbctl(daemon_.address(), args, dir_.path(), seconds);
  }
  // A benchmark of the kernel built with `options`; its job id.
  std::string Bench(const std::string& options) {
    KbctlRun run = Kbctl("-o json bench add --source " + source_ +
                         " --entry add_blocked --grid '(n+8191)/8192' --block 256 --shape "
                         "16777216 --device cuda:0 " +
                         options);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    if (run.exit_code != 0) return "";
    const nlohmann::json doc = nlohmann::json::parse(run.out);
    return (doc.contains("job") ? doc["job"] : doc)["id"].get<std::string>();
  }

  TempDir dir_;
  Daemon daemon_{dir_.path()};
  std::string source_;
};

const nlohmann::json* ChangeOf(const nlohmann::json& e, const std::string& quantity) {
  for (const nlohmann::json& c : e["changes"]) {
    if (c["quantity"] == quantity) return &c;
  }
  return nullptr;
}

bool Mentions(const nlohmann::json& lines, const std::string& word) {
  for (const nlohmann::json& l : lines) {
    if (l.get<std::string>().find(word) != std::string::npos) return true;
  }
  return false;
}

TEST_F(ExplainGpu, NamesTheRegistersAndSpillsOfAKernelBuiltToSpill) {
  const std::string original = Bench("");
  const std::string spilling = Bench("--option -maxrregcount=32");
  ASSERT_FALSE(original.empty() || spilling.empty());
  // --explain-all: the spills must be named whatever they cost in time.
  KbctlRun diff =
      Kbctl("-o json diff " + original + " " + spilling + " --explain-all", kExplainSeconds);
  ASSERT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  const nlohmann::json doc = nlohmann::json::parse(diff.out);
  ASSERT_EQ(doc["explanations"].size(), 1u) << diff.out;
  const nlohmann::json& e = doc["explanations"][0];
  for (const nlohmann::json& line : e["findings"])
    std::printf("RESULT finding: %s\n", line.get<std::string>().c_str());
  for (const nlohmann::json& line : e["not_measured"])
    std::printf("RESULT not measured: %s\n", line.get<std::string>().c_str());

  const nlohmann::json* registers = ChangeOf(e, "registers");
  ASSERT_NE(registers, nullptr) << diff.out;
  EXPECT_GT((*registers)["baseline"].get<double>(), 32);
  EXPECT_LE((*registers)["candidate"].get<double>(), 32);
  const nlohmann::json* spills = ChangeOf(e, "local_bytes_per_thread");
  ASSERT_NE(spills, nullptr) << diff.out;
  EXPECT_GT((*spills)["candidate"].get<double>(), 0);
  EXPECT_TRUE(Mentions(e["findings"], "spills 0 → ")) << diff.out;

  if (!Mentions(e["not_measured"], "Nsight Compute")) {
    const nlohmann::json* traffic = ChangeOf(e, "local_traffic_bytes");
    ASSERT_NE(traffic, nullptr) << "ncu ran, so the spill traffic was measured: " << diff.out;
    EXPECT_GT((*traffic)["candidate"].get<double>(), 0);
  }
  if (!Mentions(e["not_measured"], "SASS")) {
    bool more_stores = false;
    for (const nlohmann::json& c : e["sass_changes"]) {
      if (c["opcode"] == "STL") more_stores = c.value("candidate", 0) > c.value("baseline", 0);
    }
    EXPECT_TRUE(more_stores) << diff.out;
  }
}

}  // namespace
}  // namespace kbench::testing
