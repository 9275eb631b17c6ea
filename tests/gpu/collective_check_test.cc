// The multi-GPU job's host-side pieces that need no device (issue 30): every rank's output against
// its own float64 reference, naming the first rank that fails, and the slowest rank of a call.
#include "server/executor/cuda/collective_check.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "kernels/catalogue.h"
#include "server/executor/cuda/collective_timer.h"

namespace kbench::executor::cuda {
namespace {

kernels::Problem Problem(const std::string& op, int64_t count) {
  kernels::Problem p;
  p.op = op;
  p.variant = "nccl";
  p.shape = {count};
  EXPECT_TRUE(kernels::ValidateProblem(&p).ok());
  return p;
}

TEST(CheckEveryRank, PassesWhenEveryRankHoldsTheSum) {
  const std::vector<std::vector<double>> sends = {{1, 2, 3}, {10, 20, 30}};
  const std::vector<std::vector<double>> recvs = {{11, 22, 33}, {11, 22, 33}};
  const GangCorrectness c = CheckEveryRank(Problem("all_reduce", 3), sends, recvs, {0, 0}, 7);
  EXPECT_EQ(c.failed_rank, -1);
  EXPECT_EQ(c.ranks_checked, 2);
  EXPECT_TRUE(c.correctness.passed());
  EXPECT_EQ(c.correctness.input_seed(), 7u);
}

TEST(CheckEveryRank, NamesTheRankWhoseOutputIsItsOwnInput) {
  const std::vector<std::vector<double>> sends = {{1, 2, 3}, {10, 20, 30}};
  const std::vector<std::vector<double>> recvs = {{11, 22, 33}, {10, 20, 30}};
  const GangCorrectness c = CheckEveryRank(Problem("all_reduce", 3), sends, recvs, {0, 0}, 7);
  EXPECT_EQ(c.failed_rank, 1);
  EXPECT_FALSE(c.correctness.passed());
  EXPECT_EQ(c.ranks_checked, 2);
}

TEST(CheckEveryRank, DataMovementMustBeBitExact) {
  const std::vector<std::vector<double>> sends = {{1.0}, {2.0}};
  const std::vector<std::vector<double>> recvs = {{1.0, 2.0}, {1.0, 2.0 + 1e-12}};
  const GangCorrectness c = CheckEveryRank(Problem("all_gather", 1), sends, recvs, {0, 0}, 7);
  EXPECT_EQ(c.failed_rank, 1);
}

TEST(CheckEveryRank, SaysHowManyElementsWereNeverWritten) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> sends = {{1, 2}, {3, 4}};
  const std::vector<std::vector<double>> recvs = {{1, nan}, {1, 3}};
  const GangCorrectness c = CheckEveryRank(Problem("broadcast", 2), sends, recvs, {1, 0}, 7);
  EXPECT_EQ(c.failed_rank, 0);
  EXPECT_EQ(c.correctness.unwritten_count(), 1);
  EXPECT_NE(c.correctness.detail().find("1 of 2 elements never written"), std::string::npos)
      << c.correctness.detail();
}

TEST(SlowestRank, IsTheRankWithTheLongestTime) {
  EXPECT_EQ(SlowestRank({1e-6, 3e-6, 2e-6}), 1);
  EXPECT_EQ(SlowestRank({5e-6, 3e-6}), 0);
}

}  // namespace
}  // namespace kbench::executor::cuda
