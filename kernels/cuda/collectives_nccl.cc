// The collectives' NCCL variant: one call per rank inside one NCCL group, as NCCL requires of a
// single thread that drives several devices (NCCL's "Group Calls"). NVLS stays off unless the
// operator allows it: that is the gang's environment (server/executor/cuda/gang.h), not here.
#include <nccl.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/cuda/collectives.h"
#include "kernels/cuda/nccl_status.h"

namespace kbench::kernels::cuda {
namespace {

absl::StatusOr<ncclDataType_t> NcclType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
    case DType::kTF32:
      return ncclFloat32;
    case DType::kF16:
      return ncclFloat16;
    case DType::kBF16:
      return ncclBfloat16;
  }
  return absl::InvalidArgumentError(absl::StrCat("dtype: NCCL has no ", DTypeName(dtype)));
}

// Enqueues rank r's part of the problem's collective; *call names the NCCL call that failed.
ncclResult_t EnqueueRank(const Problem& problem, const GangLaunch& gang, int r, ncclDataType_t type,
                         const char** call) {
  const RankLaunch& rank = gang.ranks[r];
  const auto comm = static_cast<ncclComm_t>(rank.nccl_comm);
  const void* send = gang.peers.send[r];
  void* recv = gang.peers.recv[r];
  const auto count = static_cast<size_t>(problem.dim(0));
  const std::string& op = problem.op;
  const int n = gang.world_size();
  *call = "ncclAllReduce";
  if (op == "all_reduce") return ncclAllReduce(send, recv, count, type, ncclSum, comm, rank.stream);
  *call = "ncclAllGather";
  if (op == "all_gather") return ncclAllGather(send, recv, count, type, comm, rank.stream);
  *call = "ncclReduceScatter";
  if (op == "reduce_scatter") {
    return ncclReduceScatter(send, recv, count, type, ncclSum, comm, rank.stream);
  }
  *call = "ncclBroadcast";
  if (op == "broadcast") {
    return ncclBroadcast(send, recv, count, type, kBroadcastRoot, comm, rank.stream);
  }
  *call = "ncclAlltoAll";
  if (op == "all_to_all") return ncclAlltoAll(send, recv, count, type, comm, rank.stream);
  // p2p: send to the rank peer_shift ahead, receive from the one peer_shift behind.
  const int shift = static_cast<int>(problem.param("peer_shift"));
  *call = "ncclSend";
  const ncclResult_t sent = ncclSend(send, count, type, (r + shift) % n, comm, rank.stream);
  if (sent != ncclSuccess) return sent;
  *call = "ncclRecv";
  return ncclRecv(recv, count, type, ((r - shift) % n + n) % n, comm, rank.stream);
}

}  // namespace

absl::Status LaunchNcclCollective(const Problem& problem, const GangLaunch& gang) {
  KBENCH_ASSIGN_OR_RETURN(const ncclDataType_t type, NcclType(problem.dtype));
  if (FindCollective(problem.op) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("kernel: ", problem.op, " is no collective"));
  }
  for (int r = 0; r < gang.world_size(); ++r) {
    if (gang.ranks[r].nccl_comm == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("nccl: rank ", r, " (cuda:", gang.ranks[r].device, ") has no communicator"));
    }
  }
  KBENCH_RETURN_IF_ERROR(NcclStatus(ncclGroupStart(), "ncclGroupStart", -1, -1, nullptr));
  absl::Status enqueued;
  for (int r = 0; r < gang.world_size() && enqueued.ok(); ++r) {
    const char* call = "";
    const ncclResult_t result = EnqueueRank(problem, gang, r, type, &call);
    enqueued = NcclStatus(result, call, r, gang.ranks[r].device,
                          static_cast<ncclComm_t>(gang.ranks[r].nccl_comm));
  }
  // The group must end even after a failed call, or NCCL keeps this thread's group open.
  const absl::Status ended = NcclStatus(ncclGroupEnd(), "ncclGroupEnd", -1, -1, nullptr);
  KBENCH_RETURN_IF_ERROR(enqueued);
  return ended;
}

}  // namespace kbench::kernels::cuda
