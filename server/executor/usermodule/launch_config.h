// A user kernel's launch configuration evaluated for one problem: the grid, block and dynamic
// shared memory expressions over the operation's dims and params (kernels/launch_expr.h), with
// Triton's defaults (block = 32 * num_warps, shared memory from its metadata). Plain C++.
#pragma once

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "kbench/v1/types.pb.h"
#include "kernels/operation.h"

namespace kbench::executor::usermodule {

struct EvaluatedLaunch {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t dynamic_smem_bytes = 0;
  std::array<int64_t, 3> cluster = {0, 0, 0};  // all 0: no cluster
  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// INVALID_ARGUMENT naming the expression for one that fails or evaluates below 1 (grid, block)
// or below 0 (shared memory).
absl::StatusOr<EvaluatedLaunch> EvaluateLaunch(const v1::UserKernel& kernel,
                                               const kernels::Problem& problem);

// Records the expressions and their values for `problem` in `record`.
void DescribeLaunch(const v1::UserKernel& kernel, const EvaluatedLaunch& launch,
                    v1::UserModuleRecord* record);

}  // namespace kbench::executor::usermodule
