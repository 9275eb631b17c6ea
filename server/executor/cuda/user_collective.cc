// A user's collective kernel launched on every rank with the collective ABI.
#include "server/executor/cuda/user_collective.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/abi.h"
#include "kernels/catalogue.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::executor::cuda {
namespace {

// The ABI's arguments of one rank, in order (kernels/abi.h's collective ABI): the values live
// here while cudaLaunchKernelExC reads them through `argv`.
struct RankArguments {
  const void* send;
  void* recv;
  const void* const* peer_send;
  void* const* peer_recv;
  uint32_t* const* peer_flags;
  std::vector<int64_t> scalars;  // count, then the params (the ABI's long long)
  unsigned int call;
  int rank;
  int world_size;

  std::vector<void*> Argv() {
    std::vector<void*> argv = {&send, &recv, &peer_send, &peer_recv, &peer_flags};
    for (int64_t& s : scalars) argv.push_back(&s);
    argv.insert(argv.end(), {&call, &rank, &world_size});
    return argv;
  }
};

absl::Status LaunchOnEveryRank(cudaKernel_t kernel, const usermodule::EvaluatedLaunch& launch,
                               const std::vector<int64_t>& scalars,
                               const kernels::cuda::GangLaunch& gang) {
  const unsigned int call = ++*gang.epoch;
  for (int r = 0; r < gang.world_size(); ++r) {
    const kernels::cuda::RankLaunch& rank = gang.ranks[r];
    if (rank.peer_send_table == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", r, " (cuda:", rank.device, ") has no peer tables"));
    }
    KBENCH_CUDA_RETURN_IF_ERROR(cudaSetDevice(rank.device));
    RankArguments args{gang.peers.send[r],
                       gang.peers.recv[r],
                       rank.peer_send_table,
                       rank.peer_recv_table,
                       rank.peer_flags_table,
                       scalars,
                       call,
                       r,
                       gang.world_size()};
    std::vector<void*> argv = args.Argv();
    cudaLaunchAttribute cluster{};
    cudaLaunchConfig_t config = UserLaunchConfig(launch, rank.stream, &cluster);
    const cudaError_t err =
        cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), argv.data());
    if (err != cudaSuccess) {
      return kernels::cuda::CudaStatus(
          err,
          absl::StrCat("launch of the user kernel on rank ", r, " (cuda:", rank.device, ")")
              .c_str(),
          __FILE__, __LINE__);
    }
  }
  return absl::OkStatus();
}

}  // namespace

const kernels::cuda::CollectiveVariant& UserCollectiveNeeds() {
  static const kernels::cuda::CollectiveVariant needs{"", "@user", nullptr, /*needs_nccl=*/false,
                                                      /*needs_peer_access=*/true};
  return needs;
}

absl::StatusOr<UserCollectiveLauncher> MakeUserCollectiveLauncher(const LoadedUserModule& module,
                                                                  const v1::UserKernel& kernel,
                                                                  const kernels::Problem& problem,
                                                                  const std::vector<int>& devices,
                                                                  bool cache_hit) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("kernel: unknown operation " + problem.op);
  KBENCH_ASSIGN_OR_RETURN(const usermodule::EvaluatedLaunch launch,
                          usermodule::EvaluateLaunch(kernel, problem));
  for (int device : devices) KBENCH_RETURN_IF_ERROR(FitUserLaunch(module, kernel, launch, device));
  const std::vector<int64_t> scalars = AbiScalars(*op, problem);
  UserCollectiveLauncher launcher;
  const cudaKernel_t handle = module.kernel;
  launcher.launch = [handle, launch, scalars](const kernels::cuda::GangLaunch& gang) {
    return LaunchOnEveryRank(handle, launch, scalars, gang);
  };
  launcher.describe = UserModuleDescriber(module, kernel, launch, cache_hit);
  return launcher;
}

}  // namespace kbench::executor::cuda
