// A collective's correctness: every rank's output against its own float64 reference, computed
// from every rank's input (kernels::CollectiveDesc::reference).
#pragma once

#include <cstdint>
#include <vector>

#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench::executor::cuda {

struct GangCorrectness {
  // The first failing rank's figures, or the largest error over the ranks when all passed.
  v1::Correctness correctness;
  // -1 when every rank passed.
  int failed_rank = -1;
  int ranks_checked = 0;
};

// `sends` and `recvs` by rank as read back; `unwritten` per rank: recv elements still poisoned.
GangCorrectness CheckEveryRank(const kernels::Problem& problem,
                               const std::vector<std::vector<double>>& sends,
                               const std::vector<std::vector<double>>& recvs,
                               const std::vector<int64_t>& unwritten, uint64_t input_seed);

}  // namespace kbench::executor::cuda
