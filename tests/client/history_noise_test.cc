// Which history entries a verdict reads the between-job noise of a result key from
// (client/verdict/history_noise.h); the estimate itself is tested in tests/analysis.
#include "client/verdict/history_noise.h"

#include <vector>

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

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

TEST(SameKeyMediansTest, ReadsOnlyResultsOfTheBaselinesKindOfStoppingRule) {
  v1::ListHistoryResponse history;
  v1::HistoryEntry base = Entry("base", 8.0);
  base.set_custom_stopping(true);
  *history.add_entries() = base;
  *history.add_entries() = Entry("default-rule", 1.0);
  v1::HistoryEntry custom = Entry("own-rule", 2.0);
  custom.set_custom_stopping(true);
  *history.add_entries() = custom;
  EXPECT_EQ(SameKeyMedians(history, "base", "host_loop", {"base"}), (std::vector<double>{2.0}));
}

TEST(NoiseOfKeyTest, EightComparableResultsGiveAnEstimateAndSevenNone) {
  v1::ListHistoryResponse history;
  *history.add_entries() = Entry("base", 1.0);
  for (int i = 0; i < 7; ++i)
    *history.add_entries() = Entry("j" + std::to_string(i), 1 + 0.01 * (i % 3));
  EXPECT_FALSE(NoiseOfKey(history, "base", "host_loop", {"base"}).Known());
  *history.add_entries() = Entry("j7", 1.01);
  const analysis::BetweenJobNoise noise = NoiseOfKey(history, "base", "host_loop", {"base"});
  EXPECT_TRUE(noise.Known());
  EXPECT_EQ(noise.results, 8);
  EXPECT_GT(noise.sigma_log, 0.001);
  EXPECT_LT(noise.sigma_log, 0.02);
}

}  // namespace
}  // namespace kbench::client
