// Factories of the catalogue's operations, one per file in kernels/ops/; listed in catalogue.cc.
#pragma once

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

}  // namespace kbench::kernels
