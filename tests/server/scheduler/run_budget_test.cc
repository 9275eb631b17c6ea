// Per-kind run budgets: what the scheduler waits for before it calls a silent executor hung.
#include "server/common/run_budget.h"

#include <gtest/gtest.h>

#include "common/stopping_defaults.h"

namespace kbench {
namespace {

TEST(JobRunBudget, IsTheSamplingTimeoutOfABenchmark) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_BENCHMARK);
  EXPECT_EQ(JobRunBudgetSeconds(spec), kDefaultTimeoutSeconds);
  spec.mutable_stopping()->set_timeout_seconds(42);
  EXPECT_EQ(JobRunBudgetSeconds(spec), 42);
}

TEST(JobRunBudget, AllowsBothNsightComputeRunsOfAProfileWithNcu) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_PROFILE);
  spec.mutable_stopping()->set_timeout_seconds(10);
  EXPECT_EQ(JobRunBudgetSeconds(spec), 10);
  spec.mutable_profile()->set_ncu(true);
  // ncu's profile run and its --import, each bounded by the executor at kNcuRunTimeoutSeconds:
  // a healthy but slow ncu must never outlast the hang deadline.
  EXPECT_EQ(JobRunBudgetSeconds(spec), 10 + 2 * kNcuRunTimeoutSeconds);
}

TEST(JobRunBudget, AllowsOneSanitizerRunPerUserKernel) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_BENCHMARK);
  spec.mutable_stopping()->set_timeout_seconds(10);
  spec.add_user_kernels()->set_name("@a");
  spec.add_user_kernels()->set_name("@b");
  EXPECT_EQ(JobRunBudgetSeconds(spec), 10);
  spec.set_sanitize(true);
  EXPECT_EQ(JobRunBudgetSeconds(spec), 10 + 2 * kSanitizerRunTimeoutSeconds);
}

}  // namespace
}  // namespace kbench
