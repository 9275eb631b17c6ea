// The between-job noise a verdict reads from a result key's history: the 95th percentile of
// pairwise |change| between earlier medians, and which history entries count.
#include "client/verdict/history_noise.h"

#include <vector>

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

TEST(BetweenJobNoiseTest, FewerThanEightResultsGiveNoEstimate) {
  const std::vector<double> seven = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0};
  const HistoryNoise noise = BetweenJobNoise(seven);
  EXPECT_EQ(noise.results, 7);
  EXPECT_EQ(noise.p95_change_percent, 0);
}

TEST(BetweenJobNoiseTest, IdenticalMediansHaveNoNoise) {
  const std::vector<double> same(8, 2.5e-6);
  const HistoryNoise noise = BetweenJobNoise(same);
  EXPECT_EQ(noise.results, 8);
  EXPECT_EQ(noise.p95_change_percent, 0);
}

TEST(BetweenJobNoiseTest, OneOutlierAmongEightIsItsChangeAtThe95thPercentile) {
  // 28 pairs: 21 of the equal medians (0 %) and 7 with the outlier (1.1 / 1.0: 10 %). The
  // nearest rank int(0.95 * 28) = 26 of the sorted 28 is one of the seven 10 % changes.
  std::vector<double> medians(7, 1.0);
  medians.push_back(1.1);
  EXPECT_NEAR(BetweenJobNoise(medians).p95_change_percent, 10.0, 1e-9);
}

TEST(BetweenJobNoiseTest, AnOutlierAmongTwentyCountsAndWithoutItTheCommonSpreadDoes) {
  // 19 medians alternate 1.00 and 1.01 (1 % apart) and one is 1.5. Of the 190 pairs, 10 x 1.00
  // and 9 x 1.01 give 45 + 36 = 81 of 0 % and 90 of 1 %; the outlier's 19 are 48.5-50 %.
  // Sorted, ranks 0-80 are 0 %, 81-170 are 1 % and 171-189 the outlier's: the nearest rank
  // int(0.95 * 190) = 180 is one of the outlier's.
  std::vector<double> medians;
  for (int i = 0; i < 19; ++i) medians.push_back(i % 2 == 0 ? 1.00 : 1.01);
  medians.push_back(1.5);
  const double p95 = BetweenJobNoise(medians).p95_change_percent;
  EXPECT_GT(p95, 48.0);
  EXPECT_LT(p95, 51.0);
  medians.pop_back();  // without it: 171 pairs, rank int(162.45) = 162, among the 1 % ones
  EXPECT_NEAR(BetweenJobNoise(medians).p95_change_percent, 1.0, 1e-9);
}

TEST(BetweenJobNoiseTest, DoesNotDependOnUnitsOrOrder) {
  const std::vector<double> a = {1.0, 1.02, 0.99, 1.05, 1.01, 0.97, 1.0, 1.03, 0.98};
  std::vector<double> scaled;
  for (auto it = a.rbegin(); it != a.rend(); ++it) scaled.push_back(*it * 1e-6);
  EXPECT_NEAR(BetweenJobNoise(a).p95_change_percent, BetweenJobNoise(scaled).p95_change_percent,
              1e-9);
}

v1::HistoryEntry Entry(const std::string& job, double median, const std::string& driver = "580") {
  v1::HistoryEntry e;
  e.set_job_id(job);
  e.set_median_seconds(median);
  e.set_correct(true);
  v1::ResultKey* key = e.mutable_key();
  key->set_kernel("square");
  key->set_variant("host_loop");
  key->add_shape(64);
  key->set_device_model("cpu");
  key->set_driver_version(driver);
  return e;
}

TEST(SameKeyMediansTest, CountsOnlyCountedResultsOfTheBaselinesKeyLeavingTheComparedJobsOut) {
  v1::ListHistoryResponse history;
  *history.add_entries() = Entry("cand", 9.0);
  *history.add_entries() = Entry("base", 8.0);
  *history.add_entries() = Entry("j1", 1.0);
  *history.add_entries() = Entry("j2", 2.0);
  *history.add_entries() = Entry("other-driver", 3.0, "550");
  v1::HistoryEntry contended = Entry("contended", 4.0);
  contended.set_contended(true);
  *history.add_entries() = contended;
  v1::HistoryEntry wrong = Entry("wrong", 5.0);
  wrong.set_correct(false);
  *history.add_entries() = wrong;
  v1::HistoryEntry impossible = Entry("impossible", 6.0);
  impossible.set_impossible(true);
  *history.add_entries() = impossible;
  v1::HistoryEntry other_variant = Entry("j3", 7.0);
  other_variant.mutable_key()->set_variant("blocked");
  *history.add_entries() = other_variant;

  EXPECT_EQ(SameKeyMedians(history, "base", "host_loop", {"base", "cand"}),
            (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(SameKeyMedians(history, "base", "host_loop", {}),
            (std::vector<double>{9.0, 8.0, 1.0, 2.0}));
  // The baseline's own entry names the key; without it (older than the window) nothing counts.
  EXPECT_TRUE(SameKeyMedians(history, "gone", "host_loop", {}).empty());
  EXPECT_TRUE(SameKeyMedians(history, "base", "blocked", {}).empty());
}

}  // namespace
}  // namespace kbench::client
