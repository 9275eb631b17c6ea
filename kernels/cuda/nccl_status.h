// NCCL results as absl::Status: the call, the rank and device, NCCL's error string and its last
// error message (ncclGetLastError), for the collectives' launchers and the executor's gang.
#pragma once

#include <nccl.h>

#include "absl/status/status.h"

namespace kbench::kernels::cuda {

// OK for ncclSuccess (and ncclInProgress, which a non-blocking communicator returns for work it
// completes later). `rank` and `device` are -1 where the call belongs to no one rank.
absl::Status NcclStatus(ncclResult_t result, const char* call, int rank, int device,
                        ncclComm_t comm);

}  // namespace kbench::kernels::cuda
