// Parsing a fleet's targets against its nodes, and which targets a device serves.
#include "server/fleet/target.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kbench::fleet {
namespace {

v1::DeviceInfo Device(const std::string& id, v1::DeviceKind kind, const std::string& name) {
  v1::DeviceInfo d;
  d.set_id(id);
  d.set_kind(kind);
  d.set_name(name);
  return d;
}

// gpu-a: cpu and an H100; gpu-b: cpu and an A100; cpu-c: cpu only.
std::vector<v1::NodeInfo> Fleet() {
  std::vector<v1::NodeInfo> nodes(3);
  nodes[0].set_name("gpu-a");
  *nodes[0].add_devices() = Device("gpu-a/cpu", v1::DEVICE_KIND_CPU, "AMD EPYC");
  *nodes[0].add_devices() = Device("gpu-a/cuda:0", v1::DEVICE_KIND_CUDA, "NVIDIA H100 80GB HBM3");
  nodes[1].set_name("gpu-b");
  *nodes[1].add_devices() = Device("gpu-b/cpu", v1::DEVICE_KIND_CPU, "Intel Xeon");
  *nodes[1].add_devices() = Device("gpu-b/cuda:0", v1::DEVICE_KIND_CUDA, "NVIDIA A100-SXM4-40GB");
  nodes[2].set_name("cpu-c");
  *nodes[2].add_devices() = Device("cpu-c/cpu", v1::DEVICE_KIND_CPU, "Intel Xeon");
  return nodes;
}

std::string TargetOf(const std::string& requested, const std::string& here = "cpu-c") {
  absl::StatusOr<ResolvedTarget> r = ResolveTarget(requested, here, Fleet());
  return r.ok() ? r->target : "error: " + std::string(r.status().message());
}

TEST(ResolveTarget, NamesOneDeviceOfOneNode) {
  EXPECT_EQ(TargetOf("gpu-b/cuda:0"), "gpu-b/cuda:0");
  EXPECT_EQ(TargetOf("gpu-a/cpu"), "gpu-a/cpu");
  absl::StatusOr<ResolvedTarget> r = ResolveTarget("gpu-a/cuda:0", "cpu-c", Fleet());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->representative.kind(), v1::DEVICE_KIND_CUDA);
  EXPECT_EQ(r->representative.id(), "gpu-a/cuda:0");
}

TEST(ResolveTarget, APlainDeviceIsTheReceivingNodes) {
  EXPECT_EQ(TargetOf("cpu", "gpu-b"), "gpu-b/cpu");
  EXPECT_EQ(TargetOf("cuda:0", "gpu-a"), "gpu-a/cuda:0");
  EXPECT_NE(TargetOf("cuda:0", "cpu-c").find("no device 'cpu-c/cuda:0'"), std::string::npos);
}

TEST(ResolveTarget, AnyOfAKindOrAModel) {
  EXPECT_EQ(TargetOf("cuda:any"), "cuda:any");
  EXPECT_EQ(TargetOf("cpu:any"), "cpu:any");
  EXPECT_EQ(TargetOf("H100:any"), "h100:any");
  EXPECT_EQ(TargetOf("a100:any"), "a100:any");
  const std::string b200 = TargetOf("b200:any");
  EXPECT_NE(b200.find("no node of the fleet has a b200"), std::string::npos) << b200;
  EXPECT_NE(b200.find("NVIDIA H100 80GB HBM3"), std::string::npos) << b200;
}

TEST(ResolveTarget, NothingAskedIsAnyGpuWhenTheFleetHasOne) {
  EXPECT_EQ(TargetOf(""), "cuda:any");
  const std::vector<v1::NodeInfo> fleet = Fleet();
  const std::vector<v1::NodeInfo> cpu_only(fleet.begin() + 2, fleet.end());
  absl::StatusOr<ResolvedTarget> r = ResolveTarget("", "cpu-c", cpu_only);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->target, "cpu-c/cpu");
}

TEST(ResolveTarget, RefusesUnknownNodesDevicesAndNonsense) {
  EXPECT_NE(TargetOf("gpu-z/cpu").find("nodes: gpu-a, gpu-b, cpu-c"), std::string::npos);
  EXPECT_NE(TargetOf("gpu-a/cuda:7").find("gpu-a/cuda:7"), std::string::npos);
  EXPECT_EQ(TargetOf("gpu-a/tpu").rfind("error: device:", 0), 0u) << TargetOf("gpu-a/tpu");
  EXPECT_EQ(TargetOf(":any").rfind("error:", 0), 0u);
}

TEST(TargetsServedBy, AGpuServesItselfItsKindAndItsModelsWords) {
  const std::vector<std::string> t =
      TargetsServedBy("gpu-a", Device("cuda:0", v1::DEVICE_KIND_CUDA, "NVIDIA H100 80GB HBM3"));
  for (const char* want : {"gpu-a/cuda:0", "cuda:any", "h100:any", "nvidia:any"}) {
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  }
  EXPECT_EQ(std::find(t.begin(), t.end(), "cpu:any"), t.end());
}

TEST(TargetsServedBy, ACpuServesItselfAndCpuAnyOnly) {
  const std::vector<std::string> t =
      TargetsServedBy("gpu-a", Device("cpu", v1::DEVICE_KIND_CPU, "AMD EPYC 9654"));
  EXPECT_EQ(t, (std::vector<std::string>{"gpu-a/cpu", "cpu:any"}));
}

TEST(TargetsServedBy, EveryTargetResolveTargetGivesIsServedBySomeDevice) {
  // The two sides agree: what a submit may store, some device's claim matches.
  for (const char* requested : {"cuda:any", "cpu:any", "h100:any", "a100:any", "gpu-b/cuda:0"}) {
    const std::string target = TargetOf(requested);
    bool served = false;
    for (const v1::NodeInfo& n : Fleet()) {
      for (v1::DeviceInfo d : n.devices()) {
        d.set_id(d.id().substr(d.id().find('/') + 1));
        const std::vector<std::string> t = TargetsServedBy(n.name(), d);
        served = served || std::find(t.begin(), t.end(), target) != t.end();
      }
    }
    EXPECT_TRUE(served) << requested << " -> " << target;
  }
}

}  // namespace
}  // namespace kbench::fleet
