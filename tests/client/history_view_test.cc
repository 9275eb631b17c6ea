// kbctl history's table ends with the spread of each key that has enough counted results.
#include "client/format/history_view.h"

#include <string>

#include "client/format/table.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

v1::HistoryEntry VariantEntry(const std::string& job, double median, const std::string& variant) {
  v1::HistoryEntry e;
  e.set_job_id(job);
  e.set_median_seconds(median);
  e.set_correct(true);
  e.set_device("cpu");
  v1::ResultKey* key = e.mutable_key();
  key->set_kernel("square");
  key->set_variant(variant);
  key->add_shape(64);
  key->add_shape(32);
  key->set_dtype(v1::DTYPE_F32);
  key->set_mode(v1::MEASURE_MODE_HOT);
  key->set_device_model("cpu");
  return e;
}

TEST(HistoryViewTest, EndsWithTheSpreadOfEachKeyWithEightCountedResults) {
  v1::ListHistoryResponse history;
  // host_loop: seven results at 1.0 us and one at 1.1 us (an outlier the robust scale ignores);
  // a contended result at 5 us does not count.
  for (int i = 0; i < 7; ++i)
    *history.add_entries() = VariantEntry("j" + std::to_string(i), 1e-6, "host_loop");
  *history.add_entries() = VariantEntry("j7", 1.1e-6, "host_loop");
  v1::HistoryEntry contended = VariantEntry("j8", 5e-6, "host_loop");
  contended.set_contended(true);
  *history.add_entries() = contended;
  // blocked: seven results, one too few for a spread.
  for (int i = 0; i < 7; ++i)
    *history.add_entries() = VariantEntry("b" + std::to_string(i), 2e-6, "blocked");

  const std::string out = RenderHistory(history);
  // Shamos' scale: most pairs differ by 0, so one 10 % outlier leaves only the numeric floor.
  EXPECT_NE(out.find("spread of host_loop 64x32 f32 hot on cpu: 8 counted results since its "
                     "last step (0 before), between-job noise 0.00%"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("spread of blocked"), std::string::npos) << out;
  EXPECT_NE(out.find("j8"), std::string::npos);  // listed in the table all the same
}

TEST(HistoryViewTest, KeepsResultsOfSeveralPlacementsApartAndSaysSo) {
  v1::ListHistoryResponse history;
  // Eight results of one placement at 1.0 us, eight of sixteen at 1.5 us: two keys, each with
  // no spread, not one key whose pairs differ by 50 %.
  for (int i = 0; i < 8; ++i) {
    *history.add_entries() = VariantEntry("a" + std::to_string(i), 1e-6, "host_loop");
    v1::HistoryEntry pooled = VariantEntry("p" + std::to_string(i), 1.5e-6, "host_loop");
    pooled.mutable_key()->set_placements(16);
    *history.add_entries() = pooled;
  }
  const std::string out = RenderHistory(history);
  EXPECT_NE(out.find("spread of host_loop 64x32 f32 hot on cpu: 8 counted results since its "
                     "last step (0 before), between-job noise 0.00%"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("spread of host_loop 64x32 f32 hot x16 placements on cpu: 8 counted "
                     "results since its last step (0 before), between-job noise 0.00%"),
            std::string::npos)
      << out;
}

// Issue 29: a J/LAUNCH column appears once any result's energy was measured ("-" where not,
// never a zero), and an unclean result listed with --include-unclean says so in its flags.
TEST(HistoryViewTest, ShowsEnergyWhereMeasuredAndFlagsUncleanResults) {
  v1::ListHistoryResponse history;
  v1::HistoryEntry measured = VariantEntry("measured", 1e-6, "host_loop");
  measured.set_clean(true);
  measured.set_joules_per_launch(2.5e-3);
  *history.add_entries() = measured;
  v1::HistoryEntry unclean = VariantEntry("unclean", 1e-6, "host_loop");
  *history.add_entries() = unclean;
  Table::SetStyle({.wide = true});  // energy is a -o wide column
  const std::string out = RenderHistory(history);
  Table::SetStyle({});
  EXPECT_NE(out.find("J/LAUNCH"), std::string::npos) << out;
  EXPECT_NE(out.find("2.5 mJ"), std::string::npos) << out;
  EXPECT_NE(out.find("  unclean"), std::string::npos) << out;

  v1::ListHistoryResponse without_energy;
  v1::HistoryEntry clean = VariantEntry("clean", 1e-6, "host_loop");
  clean.set_clean(true);
  *without_energy.add_entries() = clean;
  EXPECT_EQ(RenderHistory(without_energy).find("J/LAUNCH"), std::string::npos);
  EXPECT_EQ(RenderHistory(history).find("J/LAUNCH"), std::string::npos);  // not -o wide
}

// Issue 28: a default table fits 100 columns; the interval is its relative half-width there and
// its ends with -o wide. The row is an H200 result as the issue 29 proofs listed it.
TEST(HistoryViewTest, FitsOneHundredColumnsAndShowsTheIntervalsEndsWithWide) {
  v1::ListHistoryResponse history;
  v1::HistoryEntry e = VariantEntry("j-0fb9b1192f0fd1ca", 69.15e-6, "vectorized");
  e.mutable_key()->clear_shape();
  e.mutable_key()->add_shape(33554432);
  e.mutable_key()->set_mode(v1::MEASURE_MODE_COLD);
  e.set_median_ci_low_seconds(69.09e-6);
  e.set_median_ci_high_seconds(69.18e-6);
  e.set_contended(true);
  e.mutable_finish_time()->set_seconds(1795843318);
  *history.add_entries() = e;
  const std::string out = RenderHistory(history);
  size_t start = 0;
  for (size_t end = out.find('\n'); end != std::string::npos; end = out.find('\n', start)) {
    EXPECT_LE(DisplayWidth(out.substr(start, end - start)), 100u) << out;
    start = end + 1;
  }
  EXPECT_NE(out.find("±0.09%"), std::string::npos) << out;
  EXPECT_EQ(out.find(" .. "), std::string::npos) << out;
  Table::SetStyle({.wide = true});
  const std::string wide = RenderHistory(history);
  Table::SetStyle({});
  EXPECT_NE(wide.find("69.09 us .. 69.18 us"), std::string::npos) << wide;
}

TEST(LeaderboardViewTest, ABoardByEnergyShowsJoulesAndTimeAndSaysWhatRanks) {
  v1::GetLeaderboardResponse board;
  board.set_device_model("NVIDIA H100 80GB HBM3");
  v1::LeaderboardEntry* e = board.add_ranked();
  e->set_rank(1);
  e->set_variant("fused");
  e->set_geomean_joules_per_launch(1.5e-3);
  v1::LeaderboardPoint* p = e->add_points();
  p->add_shape(4096);
  p->set_median_seconds(90e-6);
  p->set_joules_per_launch(1.5e-3);
  p->set_job_id("j-1");
  const std::string out = RenderLeaderboard(board, /*by_energy=*/true);
  EXPECT_NE(out.find("by its least energy per launch"), std::string::npos) << out;
  EXPECT_NE(out.find("GEOMEAN J/LAUNCH"), std::string::npos) << out;
  EXPECT_NE(out.find("1.5 mJ"), std::string::npos) << out;
  EXPECT_NE(out.find("90"), std::string::npos) << out;
}

}  // namespace
}  // namespace kbench::client
