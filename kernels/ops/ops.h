// Factories of the catalogue's operations, one per file in kernels/ops/; listed in catalogue.cc.
#pragma once

#include <vector>

#include "kernels/operation.h"

namespace kbench::kernels {

Operation MakeCopyOp();
Operation MakeSquareOp();
Operation MakeAddOp();
Operation MakeGeluOp();
Operation MakeSoftmaxOp();
Operation MakeReduceOp();
Operation MakeMatmulOp();
Operation MakeMlpOp();
// all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, p2p (collectives.h).
std::vector<Operation> MakeCollectiveOps();

}  // namespace kbench::kernels
