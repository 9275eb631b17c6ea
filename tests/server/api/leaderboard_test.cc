// GetLeaderboard on a real (SQLite) result index (issue 23, item 7): a ranked board counts only
// ranked runs, each contender by the median of its runs (never the best), with an interval that
// holds every run's; overlapping intervals are ties sharing a rank; a rank is provisional until
// kbenchd's own re-run confirmed it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "server/api/history_service.h"
#include "server/store/job_store.h"

namespace kbench::api {
namespace {

class LeaderboardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kbench_leaderboard_XXXXXX";
    dir_ = mkdtemp(tmpl);
    store::StoreLocation location;
    location.data_dir = dir_;
    absl::StatusOr<std::unique_ptr<store::JobStore>> opened = store::JobStore::Open(location);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
  }
  void TearDown() override {
    store_.reset();
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  // One indexed result of job `id` (created here): `variant` at shape 1024 with `median` and
  // the interval median -/+ `half`.
  void Add(const std::string& id, const std::string& variant, double median, double half,
           bool ranked, bool confirmation = false, double joules = 0, bool clean = true) {
    store::JobRecord job;
    job.id = id;
    job.device = "cpu";
    job.kernel = "gelu";
    job.spec = "spec";
    ASSERT_TRUE(store_->Insert(job).ok());
    store::IndexedResult r;
    r.job_id = id;
    r.variant = variant;
    r.kernel = "gelu";
    r.shape = "1024";
    r.dtype = "f32";
    r.mode = "cold";
    r.device = "cpu";
    r.device_model = "Some CPU";
    r.owner = "alice";
    r.median_seconds = median;
    r.median_ci_low_seconds = median - half;
    r.median_ci_high_seconds = median + half;
    r.samples = 100;
    r.correct = true;
    r.ranked = ranked;
    r.confirmation = confirmation;
    r.joules_per_launch = joules;
    r.clean = clean;
    ASSERT_TRUE(store_->IndexResults({r}).ok());
  }

  v1::GetLeaderboardResponse Board(bool include_unranked = false, bool by_energy = false,
                                   bool include_unclean = false) {
    v1::GetLeaderboardRequest request;
    request.set_by_energy(by_energy);
    request.set_include_unclean(include_unclean);
    request.set_kernel("gelu");
    request.add_shapes()->add_dims(1024);
    request.set_dtype(v1::DTYPE_F32);
    request.set_device_model("Some CPU");
    request.set_include_unranked(include_unranked);
    v1::GetLeaderboardResponse response;
    const absl::Status s = GetLeaderboard(
        *store_, [](const std::string& m) { return m; }, request, &response);
    EXPECT_TRUE(s.ok()) << s;
    return response;
  }

  std::string dir_;
  std::unique_ptr<store::JobStore> store_;
};

TEST_F(LeaderboardTest, RanksEachContenderByTheMedianOfItsRankedRuns) {
  // a's runs: 1.0, 1.4, 5.0 (median 1.4); one lucky unranked 0.1 must not count.
  Add("a1", "a", 1.0, 0.01, true);
  Add("a2", "a", 1.4, 0.01, true, /*confirmation=*/true);
  Add("a3", "a", 5.0, 0.01, true);
  Add("a4", "a", 0.1, 0.01, false);
  Add("b1", "b", 2.0, 0.01, true);
  Add("b2", "b", 2.2, 0.01, true);
  const v1::GetLeaderboardResponse board = Board();
  ASSERT_EQ(board.ranked_size(), 2);
  const v1::LeaderboardEntry& a = board.ranked(0);
  EXPECT_EQ(a.variant(), "a");
  EXPECT_DOUBLE_EQ(a.points(0).median_seconds(), 1.4);
  EXPECT_EQ(a.points(0).runs(), 3);
  EXPECT_EQ(a.points(0).job_id(), "a2");  // the run at the median
  EXPECT_DOUBLE_EQ(a.points(0).ci_low_seconds(), 0.99);
  EXPECT_DOUBLE_EQ(a.points(0).ci_high_seconds(), 5.01);
  EXPECT_TRUE(a.final());  // a2 confirmed it
  EXPECT_TRUE(a.points(0).confirmed());
  const v1::LeaderboardEntry& b = board.ranked(1);
  EXPECT_FALSE(b.final());  // two runs, neither kbenchd's confirmation
  EXPECT_DOUBLE_EQ(b.points(0).median_seconds(), 2.1);
  // a's interval [0.99, 5.01] holds b's: they cannot be told apart.
  EXPECT_TRUE(b.tied());
  EXPECT_EQ(b.rank(), 1);
}

TEST_F(LeaderboardTest, SeparatesContendersWhoseIntervalsDoNotOverlapAndMarksUnconfirmedRanks) {
  Add("a1", "a", 1.0, 0.05, true);
  Add("a2", "a", 1.02, 0.05, true, /*confirmation=*/true);
  Add("b1", "b", 2.0, 0.05, true);
  const v1::GetLeaderboardResponse board = Board();
  ASSERT_EQ(board.ranked_size(), 2);
  EXPECT_EQ(board.ranked(0).rank(), 1);
  EXPECT_TRUE(board.ranked(0).final());
  EXPECT_EQ(board.ranked(1).rank(), 2);
  EXPECT_FALSE(board.ranked(1).tied());
  EXPECT_FALSE(board.ranked(1).final());  // not confirmed
}

TEST_F(LeaderboardTest, CountsNoUnrankedResultUnlessAsked) {
  Add("u1", "u", 0.5, 0.01, false);
  EXPECT_EQ(Board().ranked_size(), 0);
  const v1::GetLeaderboardResponse all = Board(/*include_unranked=*/true);
  ASSERT_EQ(all.ranked_size(), 1);
  EXPECT_DOUBLE_EQ(all.ranked(0).points(0).median_seconds(), 0.5);
  EXPECT_EQ(all.ranked(0).points(0).runs(), 0);  // a best-of board has no runs or intervals
  EXPECT_FALSE(all.ranked(0).tied());
}

// Issue 29: a contaminated run counts on no board unless asked, however fast it was.
TEST_F(LeaderboardTest, LeavesOutUncleanRunsUnlessAsked) {
  Add("a1", "a", 1.0, 0.01, true);
  Add("b1", "b", 0.5, 0.01, true, false, 0, /*clean=*/false);
  const v1::GetLeaderboardResponse board = Board();
  ASSERT_EQ(board.ranked_size(), 1);
  EXPECT_EQ(board.ranked(0).variant(), "a");
  const v1::GetLeaderboardResponse all = Board(false, false, /*include_unclean=*/true);
  ASSERT_EQ(all.ranked_size(), 2);
  EXPECT_EQ(all.ranked(0).variant(), "b");
}

// Issue 29: --by energy ranks the median run's joules per launch; the faster variant that
// spends more energy ranks below, results without a measured energy are left out, and the time
// of the run at the energy median is shown beside it.
TEST_F(LeaderboardTest, ByEnergyRanksJoulesPerLaunchOfMeasuredRunsOnly) {
  Add("fast1", "fast", 1.0, 0.01, true, false, /*joules=*/3e-3);
  Add("fast2", "fast", 1.1, 0.01, true, false, /*joules=*/5e-3);
  Add("fast3", "fast", 1.2, 0.01, true, false, /*joules=*/4e-3);
  Add("frugal1", "frugal", 2.0, 0.01, true, false, /*joules=*/1e-3);
  Add("unmeasured1", "unmeasured", 0.5, 0.01, true);
  const v1::GetLeaderboardResponse board = Board(false, /*by_energy=*/true);
  ASSERT_EQ(board.ranked_size(), 2);
  EXPECT_EQ(board.ranked(0).variant(), "frugal");
  EXPECT_DOUBLE_EQ(board.ranked(0).geomean_joules_per_launch(), 1e-3);
  const v1::LeaderboardEntry& fast = board.ranked(1);
  EXPECT_EQ(fast.variant(), "fast");
  EXPECT_EQ(fast.rank(), 2);
  EXPECT_FALSE(fast.tied());
  EXPECT_DOUBLE_EQ(fast.points(0).joules_per_launch(), 4e-3);  // the median of 3, 5, 4 mJ
  EXPECT_EQ(fast.points(0).job_id(), "fast3");
  EXPECT_DOUBLE_EQ(fast.points(0).median_seconds(), 1.2);  // fast3's time
  EXPECT_DOUBLE_EQ(fast.geomean_joules_per_launch(), 4e-3);
  // A board by time still shows each point's energy where it was measured.
  const v1::GetLeaderboardResponse by_time = Board();
  ASSERT_EQ(by_time.ranked_size(), 3);
  EXPECT_EQ(by_time.ranked(0).variant(), "unmeasured");
  EXPECT_FALSE(by_time.ranked(0).points(0).has_joules_per_launch());
  EXPECT_TRUE(by_time.ranked(1).points(0).has_joules_per_launch());
}

}  // namespace
}  // namespace kbench::api
