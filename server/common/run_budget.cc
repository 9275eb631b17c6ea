// Per-kind run budgets (run_budget.h).
#include "server/common/run_budget.h"

#include "common/stopping_defaults.h"

namespace kbench {

double JobRunBudgetSeconds(const v1::JobSpec& spec) {
  double budget = spec.stopping().timeout_seconds() > 0 ? spec.stopping().timeout_seconds()
                                                        : kDefaultTimeoutSeconds;
  if (spec.kind() == v1::JOB_KIND_PROFILE && spec.profile().ncu()) {
    budget += 2 * kNcuRunTimeoutSeconds;
  }
  if (spec.sanitize()) budget += spec.user_kernels_size() * kSanitizerRunTimeoutSeconds;
  return budget;
}

}  // namespace kbench
