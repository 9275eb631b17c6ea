// Evaluation of a user kernel's launch configuration.
#include "server/executor/usermodule/launch_config.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kernels/abi.h"
#include "kernels/catalogue.h"
#include "kernels/launch_expr.h"

namespace kbench::executor::usermodule {
namespace {

absl::Status EvaluateAll(const google::protobuf::RepeatedPtrField<std::string>& exprs,
                         const char* field, const std::map<std::string, int64_t>& values,
                         std::array<int64_t, 3>* out) {
  for (int i = 0; i < exprs.size() && i < 3; ++i) {
    const std::string name = absl::StrCat("launch.", field, "[", i, "]");
    KBENCH_ASSIGN_OR_RETURN((*out)[i], kernels::EvaluateLaunchExpr(name, exprs.Get(i), values));
    if ((*out)[i] < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": '", exprs.Get(i), "' evaluates to ", (*out)[i], "; must be >= 1"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EvaluatedLaunch> EvaluateLaunch(const v1::UserKernel& kernel,
                                               const kernels::Problem& problem) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("kernel: unknown operation " + problem.op);
  const std::map<std::string, int64_t> values = kernels::LaunchExpressionValues(*op, problem);
  EvaluatedLaunch launch;
  const v1::LaunchConfig& config = kernel.launch();
  KBENCH_RETURN_IF_ERROR(EvaluateAll(config.grid(), "grid", values, &launch.grid));
  const bool triton = kernel.form() == v1::USER_KERNEL_FORM_TRITON;
  if (config.block().empty() && triton) {
    launch.block[0] = 32 * int64_t{kernel.triton().num_warps()};
  } else {
    KBENCH_RETURN_IF_ERROR(EvaluateAll(config.block(), "block", values, &launch.block));
  }
  if (!config.dynamic_smem().empty()) {
    KBENCH_ASSIGN_OR_RETURN(
        launch.dynamic_smem_bytes,
        kernels::EvaluateLaunchExpr("launch.dynamic_smem", config.dynamic_smem(), values));
    if (launch.dynamic_smem_bytes < 0) {
      return absl::InvalidArgumentError(absl::StrCat("launch.dynamic_smem: evaluates to ",
                                                     launch.dynamic_smem_bytes, "; must be >= 0"));
    }
  } else if (triton) {
    launch.dynamic_smem_bytes = kernel.triton().shared_bytes();
  }
  for (int i = 0; i < config.cluster_size() && i < 3; ++i) launch.cluster[i] = config.cluster(i);
  if (config.cluster_size() > 0) {
    for (int64_t& c : launch.cluster) c = c == 0 ? 1 : c;
  }
  return launch;
}

void DescribeLaunch(const v1::UserKernel& kernel, const EvaluatedLaunch& launch,
                    v1::UserModuleRecord* record) {
  *record->mutable_launch() = kernel.launch();
  record->clear_grid();
  record->clear_block();
  for (int64_t g : launch.grid) record->add_grid(g);
  for (int64_t b : launch.block) record->add_block(b);
  record->set_dynamic_smem_bytes(launch.dynamic_smem_bytes);
}

}  // namespace kbench::executor::usermodule
