// A multi-GPU job's devices in a fleet (issue 30): one live node, one model, the least queued.
#include "server/fleet/gang_target.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "server/common/device_id.h"

namespace kbench::fleet {
namespace {

v1::DeviceInfo Gpu(const std::string& id, const std::string& model, int queued = 0) {
  v1::DeviceInfo d;
  d.set_id(id);
  d.set_kind(v1::DEVICE_KIND_CUDA);
  d.set_name(model);
  d.set_state(v1::DEVICE_STATE_READY);
  d.set_queue_depth(queued);
  return d;
}

// big: four H100s (cuda:0 busy); mixed: an H100 and an A100; lost: two H100s, no heartbeat.
std::vector<v1::NodeInfo> Fleet() {
  std::vector<v1::NodeInfo> nodes(3);
  nodes[0].set_name("big");
  nodes[0].set_alive(true);
  *nodes[0].add_devices() = Gpu("big/cuda:0", "H100", 3);
  for (int i = 1; i < 4; ++i) *nodes[0].add_devices() = Gpu(absl::StrCat("big/cuda:", i), "H100");
  nodes[1].set_name("mixed");
  nodes[1].set_alive(true);
  *nodes[1].add_devices() = Gpu("mixed/cuda:0", "H100");
  *nodes[1].add_devices() = Gpu("mixed/cuda:1", "A100");
  nodes[2].set_name("lost");
  nodes[2].set_alive(false);
  for (int i = 0; i < 2; ++i) {
    v1::DeviceInfo d = Gpu(absl::StrCat("lost/cuda:", i), "H100");
    d.set_state(v1::DEVICE_STATE_FAILED);
    *nodes[2].add_devices() = d;
  }
  return nodes;
}

std::vector<std::string> Ids(const absl::StatusOr<std::vector<v1::DeviceInfo>>& gang) {
  std::vector<std::string> ids;
  if (gang.ok()) {
    for (const v1::DeviceInfo& d : *gang) ids.push_back(d.id());
  }
  return ids;
}

TEST(ResolveGangTarget, ACountTakesTheLeastQueuedDevicesOfOneModelOnOneLiveNode) {
  EXPECT_EQ(Ids(ResolveGangTarget({}, 2, "mixed", Fleet())),
            (std::vector<std::string>{"big/cuda:1", "big/cuda:2"}));
  EXPECT_EQ(Ids(ResolveGangTarget({}, 4, "mixed", Fleet())),
            (std::vector<std::string>{"big/cuda:0", "big/cuda:1", "big/cuda:2", "big/cuda:3"}));
  const absl::Status five = ResolveGangTarget({}, 5, "mixed", Fleet()).status();
  EXPECT_EQ(five.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(five.message().find("most: 4 on big, H100"), std::string::npos) << five;
}

TEST(ResolveGangTarget, NamedDevicesAreOfOneNodeAndOneModel) {
  EXPECT_EQ(Ids(ResolveGangTarget({"big/cuda:3", "big/cuda:1"}, 0, "mixed", Fleet())),
            (std::vector<std::string>{"big/cuda:3", "big/cuda:1"}));
  EXPECT_EQ(Ids(ResolveGangTarget({"cuda:2", "cuda:3"}, 0, "big", Fleet())),
            (std::vector<std::string>{"big/cuda:2", "big/cuda:3"}))
      << "a plain id is the receiving node's";
  const auto code = [](const std::vector<std::string>& named, int gpus) {
    return ResolveGangTarget(named, gpus, "big", Fleet()).status().code();
  };
  EXPECT_EQ(code({"big/cuda:0", "mixed/cuda:0"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"mixed/cuda:0", "mixed/cuda:1"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"big/cuda:1", "big/cuda:1"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"big/cuda:1", "cuda:any"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"big/cuda:1", "big/cpu"}, 0), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code({"lost/cuda:0", "lost/cuda:1"}, 0), absl::StatusCode::kUnavailable);
  EXPECT_EQ(code({"big/cuda:1"}, 2), absl::StatusCode::kInvalidArgument) << "both ways";
  EXPECT_EQ(code({}, -1), absl::StatusCode::kInvalidArgument) << "no one host is 'all'";
}

TEST(LocalDeviceId, IsTheIdItsOwnNodeKnows) {
  EXPECT_EQ(LocalDeviceId("gpu-a/cuda:1"), "cuda:1");
  EXPECT_EQ(LocalDeviceId("cuda:1"), "cuda:1");
}

}  // namespace
}  // namespace kbench::fleet
