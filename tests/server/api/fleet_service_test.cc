// FleetService and HistoryService over a keeping queue and a real job store
// (service_fixture.h): what can run where, and the lab's history read back.
#include "server/api/fleet_service.h"

#include <gtest/gtest.h>

#include "kernels/catalogue.h"
#include "server/api/history_service.h"
#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

using FleetServiceTest = fixture::ServiceTest;

TEST_F(FleetServiceTest, ListsTheCatalogueAndTheQueuesDevicesAndNodes) {
  FleetService fleet(queue_.get());
  v1::ListKernelsResponse kernels;
  ASSERT_TRUE(fleet.ListKernels(alice_, v1::ListKernelsRequest(), &kernels).ok());
  EXPECT_EQ(static_cast<size_t>(kernels.kernels_size()), kernels::Catalogue().size());
  v1::ListDevicesResponse devices;
  ASSERT_TRUE(fleet.ListDevices(alice_, v1::ListDevicesRequest(), &devices).ok());
  ASSERT_EQ(devices.devices_size(), 1);
  EXPECT_EQ(devices.devices(0).id(), "cpu");
  v1::ListNodesResponse nodes;
  ASSERT_TRUE(fleet.ListNodes(alice_, v1::ListNodesRequest(), &nodes).ok());
  EXPECT_EQ(nodes.nodes_size(), 0);  // no fleet
}

TEST_F(FleetServiceTest, HistoryNamesWhatARequestLacksAndListsNothingBeforeAnyResult) {
  HistoryService history(jobs_.get(), queue_.get());
  v1::ListHistoryRequest request;
  v1::ListHistoryResponse response;
  const absl::Status no_kernel = history.List(alice_, request, &response);
  EXPECT_EQ(no_kernel.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_kernel.message().find("kernel"), std::string::npos) << no_kernel;
  request.set_kernel("square");
  ASSERT_TRUE(history.List(alice_, request, &response).ok());
  EXPECT_EQ(response.entries_size(), 0);

  v1::GetLeaderboardRequest board;
  board.set_kernel("square");
  board.add_shapes()->add_dims(64);
  board.set_dtype(v1::DTYPE_F32);
  board.set_device_model("cpu");  // a device id: the board is its model's
  v1::GetLeaderboardResponse ranked;
  ASSERT_TRUE(history.Leaderboard(alice_, board, &ranked).ok());
  EXPECT_EQ(ranked.ranked_size(), 0);
}

}  // namespace
}  // namespace kbench::api
