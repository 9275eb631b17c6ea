// kbench.v1's fleet (issue 27: one small service per domain): what this kbenchd can run and
// where — the catalogue's kernels (ListKernels), the devices a job can ask for (ListDevices) and
// the fleet's nodes with their heartbeats (ListNodes; this node alone without a fleet).
#pragma once

#include "absl/status/status.h"
#include "kbench/v1/service.pb.h"
#include "server/auth/authenticator.h"
#include "server/scheduler/job_queue.h"

namespace kbench::api {

class FleetService {
 public:
  // `queue` must outlive it.
  explicit FleetService(scheduler::JobQueue* queue) : queue_(queue) {}

  // Everyone may see them.
  absl::Status ListKernels(const auth::Identity& caller, const v1::ListKernelsRequest& request,
                           v1::ListKernelsResponse* response);
  absl::Status ListDevices(const auth::Identity& caller, const v1::ListDevicesRequest& request,
                           v1::ListDevicesResponse* response);
  absl::Status ListNodes(const auth::Identity& caller, const v1::ListNodesRequest& request,
                         v1::ListNodesResponse* response);

 private:
  scheduler::JobQueue* const queue_;
};

}  // namespace kbench::api
