// The Chrome trace built from the recorded softmax fixture: valid JSON, the right tracks,
// flow arrows from launch calls to kernels, per-kernel args, microsecond timestamps.
#include "server/executor/profile/chrome_trace.h"

#include <map>
#include <set>

#include "gtest/gtest.h"
#include "tests/server/executor/profile/fixtures.h"

namespace kbench::executor::profile {
namespace {

using nlohmann::json;
using testing::kFixtureBase;
using testing::LoadSoftmaxFixture;

constexpr int64_t kHostPid = 4242;
constexpr int64_t kHostTid = 4243;
constexpr int64_t kGpu0 = kDevicePidBase + 0;

json BuildFixtureTrace() {
  const ActivityLog log = LoadSoftmaxFixture();
  TraceOptions options;
  options.limits = H100Limits();
  options.metadata = {{"job_id", "job-1"}, {"kernel", "softmax"}};
  // Through text and back: what a viewer gets is the serialised document.
  return json::parse(BuildChromeTrace(log, Attribute(log), options).dump());
}

std::vector<json> Events(const json& trace, const std::string& ph, const std::string& cat = "") {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == ph && (cat.empty() || e.value("cat", "") == cat)) out.push_back(e);
  }
  return out;
}

TEST(ChromeTrace, IsATraceEventDocument) {
  const json trace = BuildFixtureTrace();
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"]["job_id"], "job-1");
  EXPECT_EQ(trace["otherData"]["base_time_ns"].get<uint64_t>(), kFixtureBase);
  for (const json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "X") {
      ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e.contains("tid")) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0);
    }
  }
}

TEST(ChromeTrace, PutsKernelsOnTheirDeviceStreamTrack) {
  const json trace = BuildFixtureTrace();
  const std::vector<json> kernels = Events(trace, "X", "kernel");
  // 6 + 5 in the naive check and warm-up, 10 recorded; 1 + 1 + 2 for fused.
  EXPECT_EQ(kernels.size(), 11u + 10u + 4u);
  for (const json& k : kernels) {
    EXPECT_EQ(k["pid"], kGpu0);
    EXPECT_EQ(k["tid"], 13);
  }
  bool named_process = false, named_stream = false;
  for (const json& m : Events(trace, "M")) {
    if (m["name"] == "process_name" && m["pid"] == kGpu0 && m["args"]["name"] == "GPU 0") {
      named_process = true;
    }
    if (m["name"] == "thread_name" && m["pid"] == kGpu0 && m["tid"] == 13 &&
        m["args"]["name"] == "stream 13") {
      named_stream = true;
    }
  }
  EXPECT_TRUE(named_process);
  EXPECT_TRUE(named_stream);
}

TEST(ChromeTrace, PutsApiCallsAndPhasesOnTheHostThread) {
  const json trace = BuildFixtureTrace();
  const std::vector<json> runtime = Events(trace, "X", "cuda_runtime");
  const std::vector<json> driver = Events(trace, "X", "cuda_driver");
  EXPECT_FALSE(runtime.empty());
  EXPECT_FALSE(driver.empty());
  for (const json& a : runtime) {
    EXPECT_EQ(a["pid"], kHostPid);
    EXPECT_EQ(a["tid"], kHostTid);
  }
  EXPECT_EQ(runtime.front()["name"], "cudaMemsetAsync");
  std::set<std::string> phases;
  for (const json& p : Events(trace, "X", "phase")) {
    EXPECT_EQ(p["tid"], kHostTid);
    phases.insert(p["name"].get<std::string>());
  }
  for (const char* want : {"prepare naive", "check naive", "warmup naive", "profile naive",
                           "iteration 0", "iteration 1", "profile fused"}) {
    EXPECT_TRUE(phases.contains(want)) << want;
  }
  bool named_thread = false;
  for (const json& m : Events(trace, "M")) {
    if (m["name"] == "thread_name" && m["pid"] == kHostPid && m["tid"] == kHostTid) {
      named_thread = true;
    }
  }
  EXPECT_TRUE(named_thread);
}

TEST(ChromeTrace, DrawsAFlowFromEachLaunchCallToItsWork) {
  const json trace = BuildFixtureTrace();
  std::map<uint64_t, json> starts, finishes;
  for (const json& s : Events(trace, "s")) starts[s["id"].get<uint64_t>()] = s;
  for (const json& f : Events(trace, "f")) finishes[f["id"].get<uint64_t>()] = f;
  // Every kernel, the memset and the copy: 25 + 2.
  EXPECT_EQ(starts.size(), 27u);
  EXPECT_EQ(finishes.size(), 27u);
  std::map<uint64_t, json> api_by_correlation;
  for (const json& a : Events(trace, "X", "cuda_runtime")) {
    api_by_correlation[a["args"]["correlation"].get<uint64_t>()] = a;
  }
  for (const json& k : Events(trace, "X", "kernel")) {
    const uint64_t id = k["args"]["correlation"].get<uint64_t>();
    ASSERT_TRUE(finishes.contains(id)) << k.dump();
    const json& f = finishes[id];
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(f["pid"], k["pid"]);
    EXPECT_EQ(f["tid"], k["tid"]);
    EXPECT_DOUBLE_EQ(f["ts"].get<double>(), k["ts"].get<double>());
    ASSERT_TRUE(starts.contains(id));
    const json& s = starts[id];
    EXPECT_EQ(s["pid"], kHostPid);
    EXPECT_EQ(s["tid"], kHostTid);
    EXPECT_EQ(s["cat"], f["cat"]);
    if (api_by_correlation.contains(id)) {
      EXPECT_DOUBLE_EQ(s["ts"].get<double>(), api_by_correlation[id]["ts"].get<double>());
    }
  }
}

TEST(ChromeTrace, StartsADriverOnlyLaunchsFlowAtTheDriverCall) {
  const json trace = BuildFixtureTrace();
  for (const json& k : Events(trace, "X", "kernel")) {
    if (k["name"] != "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x32_helper") continue;
    const uint64_t id = k["args"]["correlation"].get<uint64_t>();
    for (const json& d : Events(trace, "X", "cuda_driver")) {
      if (d["args"]["correlation"].get<uint64_t>() != id) continue;
      EXPECT_EQ(d["name"], "cuLaunchKernelEx");
      for (const json& s : Events(trace, "s")) {
        if (s["id"].get<uint64_t>() == id) {
          EXPECT_DOUBLE_EQ(s["ts"].get<double>(), d["ts"].get<double>());
          return;
        }
      }
    }
  }
  FAIL() << "the driver-launched kernel has no flow from its cuLaunchKernelEx";
}

TEST(ChromeTrace, GivesEachKernelItsLaunchConfigurationAndResources) {
  const json trace = BuildFixtureTrace();
  for (const json& k : Events(trace, "X", "kernel")) {
    if (k["name"] != "void kbench::SoftmaxFusedKernel<256>(float const*, float*, int, int)") {
      continue;
    }
    const json& a = k["args"];
    EXPECT_EQ(a["grid"], json::array({4096, 1, 1}));
    EXPECT_EQ(a["block"], json::array({256, 1, 1}));
    EXPECT_EQ(a["registers per thread"], 40);
    EXPECT_EQ(a["static shared memory"], 2048);
    EXPECT_EQ(a["dynamic shared memory"], 16384);
    EXPECT_EQ(a["local memory per thread"], 0);
    EXPECT_EQ(a["max threads per block"], 256);
    EXPECT_DOUBLE_EQ(a["theoretical occupancy %"].get<double>(), 75.0);
    EXPECT_EQ(a["mangled name"], "_ZN6kbench18SoftmaxFusedKernelILi256EEEvPKfPfii");
    EXPECT_TRUE(a["phase"] == "check" || a["phase"] == "warmup" || a["phase"] == "profile");
    if (a["phase"] == "profile") {
      EXPECT_TRUE(a.contains("iteration"));
    }
  }
}

TEST(ChromeTrace, GivesCopiesTheirBytesAndKind) {
  const json trace = BuildFixtureTrace();
  const std::vector<json> copies = Events(trace, "X", "memcpy");
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0]["name"], "Memcpy DtoH");
  EXPECT_EQ(copies[0]["args"]["bytes"], 4 << 20);
  EXPECT_EQ(copies[0]["args"]["kind"], "DtoH");
  EXPECT_EQ(copies[0]["pid"], kGpu0);
  const std::vector<json> memsets = Events(trace, "X", "memset");
  ASSERT_EQ(memsets.size(), 1u);
  EXPECT_EQ(memsets[0]["args"]["bytes"], 4 << 20);
}

TEST(ChromeTrace, UsesMicrosecondsSinceTheFirstRecord) {
  const json trace = BuildFixtureTrace();
  for (const json& k : Events(trace, "X", "kernel")) {
    // The first recorded naive RowMax: starts 1006.1 us after the base, runs 20 us.
    if (k["args"].value("phase", "") == "profile" && k["args"].value("iteration", -1) == 0 &&
        k["name"] == "kbench::SoftmaxRowMaxKernel(float const*, float*, int, int)") {
      EXPECT_DOUBLE_EQ(k["ts"].get<double>(), 1006.1);
      EXPECT_DOUBLE_EQ(k["dur"].get<double>(), 20.0);
      return;
    }
  }
  FAIL() << "no recorded RowMax kernel";
}

TEST(ChromeTrace, ShowsSynchronisationAndCuptiOverheadOnTheirOwnTracks) {
  const json trace = BuildFixtureTrace();
  const std::vector<json> syncs = Events(trace, "X", "cuda_sync");
  ASSERT_FALSE(syncs.empty());
  EXPECT_GE(syncs[0]["tid"].get<int64_t>(), kSyntheticTidBase);
  EXPECT_EQ(syncs[0]["args"]["type"], "stream_synchronize");
  EXPECT_EQ(syncs[0]["args"]["thread"], kHostTid);
  const std::vector<json> overhead = Events(trace, "X", "cupti_overhead");
  ASSERT_EQ(overhead.size(), 1u);
  EXPECT_GE(overhead[0]["tid"].get<int64_t>(), kSyntheticTidBase);
  EXPECT_NE(overhead[0]["tid"], syncs[0]["tid"]);
  EXPECT_EQ(overhead[0]["name"], "cupti_buffer_flush");
  std::map<int64_t, std::string> track_names;
  for (const json& m : Events(trace, "M")) {
    if (m["name"] == "thread_name") track_names[m["tid"].get<int64_t>()] = m["args"]["name"];
  }
  EXPECT_EQ(track_names[syncs[0]["tid"].get<int64_t>()],
            "CUDA sync: stream_synchronize (thread 4243)");
  EXPECT_EQ(track_names[overhead[0]["tid"].get<int64_t>()],
            "CUPTI overhead: cupti_buffer_flush (thread 4250)");
}

TEST(ChromeTrace, OrdersSlicesSoParentsPrecedeChildren) {
  const json trace = BuildFixtureTrace();
  double last = -1e18;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_GE(e["ts"].get<double>(), last);
    last = e["ts"].get<double>();
  }
}

TEST(ChromeTrace, IsEmptyButValidForAnEmptyLog) {
  const json trace = BuildChromeTrace(ActivityLog(), AttributedLog(), TraceOptions());
  EXPECT_TRUE(trace["traceEvents"].is_array());
  EXPECT_TRUE(trace["traceEvents"].empty());
}

}  // namespace
}  // namespace kbench::executor::profile
