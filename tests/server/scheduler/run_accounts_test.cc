// RunAccounts: charges from every device's worker at once are all counted, and what a run
// charged is what fair share, quotas and estimates read back.
#include "server/scheduler/run_accounts.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace kbench::scheduler {
namespace {

const absl::Time kNoon = absl::FromUnixSeconds(1'700'000'000);

TEST(RunAccounts, EveryWorkersChargeCountsWhenTheyChargeAtOnce) {
  RunAccounts accounts(absl::Hours(1));
  constexpr int kWorkers = 8;
  constexpr int kRunsEach = 500;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&accounts, w] {
      const std::string owner = w % 2 == 0 ? "alice" : "bob";
      for (int r = 0; r < kRunsEach; ++r) {
        accounts.Charge(owner, 0.5, kNoon, "square|host_loop|cpu", 0.5, true);
        (void)accounts.Decayed(owner, kNoon);  // readers beside the writers
        (void)accounts.Expected("square|host_loop|cpu");
      }
    });
  }
  for (std::thread& t : workers) t.join();
  EXPECT_DOUBLE_EQ(accounts.Totals("alice", kNoon).total_gpu_seconds,
                   kWorkers / 2 * kRunsEach * 0.5);
  EXPECT_DOUBLE_EQ(accounts.Totals("bob", kNoon).total_gpu_seconds, kWorkers / 2 * kRunsEach * 0.5);
  EXPECT_EQ(accounts.Owners(), (std::vector<std::string>{"alice", "bob"}));
}

TEST(RunAccounts, OnlyASuccessfulRunPredictsTheNextButEveryRunIsCharged) {
  RunAccounts accounts(absl::Hours(1));
  accounts.Charge("alice", 8.0, kNoon, "gemm|cublas|cuda:0", 4.0, false);
  EXPECT_FALSE(accounts.Expected("gemm|cublas|cuda:0").has_value());
  EXPECT_DOUBLE_EQ(accounts.Decayed("alice", kNoon), 8.0);
  accounts.Charge("alice", 2.0, kNoon, "gemm|cublas|cuda:0", 2.0, true);
  ASSERT_TRUE(accounts.Expected("gemm|cublas|cuda:0").has_value());
  EXPECT_DOUBLE_EQ(*accounts.Expected("gemm|cublas|cuda:0"), 2.0);
  // A half-life later the charges count half.
  EXPECT_DOUBLE_EQ(accounts.Decayed("alice", kNoon + absl::Hours(1)), 5.0);
  EXPECT_DOUBLE_EQ(accounts.Totals("alice", kNoon + absl::Hours(1)).total_gpu_seconds, 10.0);
}

}  // namespace
}  // namespace kbench::scheduler
