// Users' collective kernels (issue 30, item 3): a job's user kernel, loaded once, launched on
// every rank of the gang with the collective ABI (kernels/abi.h): this rank's send and recv,
// every rank's send, recv and barrier flags as device arrays of peer pointers, count and params,
// the call's index, the rank and the world size. Checked and timed by the multi-GPU job like
// any collective variant.
#pragma once

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/cuda/collectives.h"
#include "kernels/operation.h"
#include "server/executor/cuda/user_variant.h"

namespace kbench::executor::cuda {

struct UserCollectiveLauncher {
  // Enqueues one call on every rank (the gang's epoch is the call index: 1, 2, ...).
  std::function<absl::Status(const kernels::cuda::GangLaunch&)> launch;
  // Records what was timed (VariantResult.user_module).
  std::function<void(v1::VariantResult*)> describe;
};

// What a user collective's buffers need: peer access, the barrier flags and the peer tables.
const kernels::cuda::CollectiveVariant& UserCollectiveNeeds();

// The launcher of `kernel` (loaded as `module`) for `problem` on the gang's `devices` (CUDA
// ordinals, rank order): its launch configuration evaluated and fitted on every device.
absl::StatusOr<UserCollectiveLauncher> MakeUserCollectiveLauncher(const LoadedUserModule& module,
                                                                  const v1::UserKernel& kernel,
                                                                  const kernels::Problem& problem,
                                                                  const std::vector<int>& devices,
                                                                  bool cache_hit);

}  // namespace kbench::executor::cuda
