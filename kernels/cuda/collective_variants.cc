// The collectives' table of CUDA variants, in catalogue order (kernels/ops/collectives.cc).
#include "kernels/cuda/collectives.h"

namespace kbench::kernels::cuda {

const std::vector<CollectiveVariant>& CollectiveVariants() {
  static const std::vector<CollectiveVariant>* variants = new std::vector<CollectiveVariant>{
      {"all_reduce", "nccl", LaunchNcclCollective, /*needs_nccl=*/true},
      {"all_reduce", "one_shot", LaunchOneShotAllReduce, false, /*needs_peer_access=*/true},
      {"all_reduce", "two_shot", LaunchTwoShotAllReduce, false, /*needs_peer_access=*/true},
      {"all_reduce", "host_staged", LaunchHostStagedAllReduce},
      {"all_gather", "nccl", LaunchNcclCollective, true},
      {"reduce_scatter", "nccl", LaunchNcclCollective, true},
      {"broadcast", "nccl", LaunchNcclCollective, true},
      {"all_to_all", "nccl", LaunchNcclCollective, true},
      {"p2p", "nccl", LaunchNcclCollective, true},
  };
  return *variants;
}

const CollectiveVariant* FindCollectiveVariant(const std::string& op, const std::string& variant) {
  for (const CollectiveVariant& v : CollectiveVariants()) {
    if (op == v.op && variant == v.variant) return &v;
  }
  return nullptr;
}

}  // namespace kbench::kernels::cuda
