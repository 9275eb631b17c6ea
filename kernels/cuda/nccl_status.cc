// NCCL results as absl::Status.
#include "kernels/cuda/nccl_status.h"

#include "absl/strings/str_cat.h"

namespace kbench::kernels::cuda {

absl::Status NcclStatus(ncclResult_t result, const char* call, int rank, int device,
                        ncclComm_t comm) {
  if (result == ncclSuccess || result == ncclInProgress) return absl::OkStatus();
  const char* last = ncclGetLastError(comm);
  const std::string where =
      rank < 0 ? std::string() : absl::StrCat(" on rank ", rank, " (cuda:", device, ")");
  const std::string message =
      absl::StrCat(call, where, " failed: ", ncclGetErrorString(result),
                   last != nullptr && last[0] != '\0' ? absl::StrCat(" (", last, ")") : "");
  // A usage error (bad argument, invalid usage) is the caller's; the rest are the system's.
  if (result == ncclInvalidArgument || result == ncclInvalidUsage) {
    return absl::InvalidArgumentError(message);
  }
  return absl::InternalError(message);
}

}  // namespace kbench::kernels::cuda
