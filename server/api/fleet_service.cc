// kbench.v1's kernels, devices and nodes (see fleet_service.h).
#include "server/api/fleet_service.h"

#include <utility>

#include "kernels/catalogue.h"
#include "server/common/kernel_info.h"

namespace kbench::api {

absl::Status FleetService::ListKernels(const auth::Identity& /*caller*/,
                                       const v1::ListKernelsRequest& /*request*/,
                                       v1::ListKernelsResponse* response) {
  for (const kernels::Operation& op : kernels::Catalogue())
    *response->add_kernels() = KernelInfoOf(op);
  return absl::OkStatus();
}

absl::Status FleetService::ListDevices(const auth::Identity& /*caller*/,
                                       const v1::ListDevicesRequest& /*request*/,
                                       v1::ListDevicesResponse* response) {
  for (const v1::DeviceInfo& d : queue_->Devices()) *response->add_devices() = d;
  return absl::OkStatus();
}

absl::Status FleetService::ListNodes(const auth::Identity& /*caller*/,
                                     const v1::ListNodesRequest& /*request*/,
                                     v1::ListNodesResponse* response) {
  for (v1::NodeInfo& n : queue_->Nodes()) *response->add_nodes() = std::move(n);
  return absl::OkStatus();
}

}  // namespace kbench::api
