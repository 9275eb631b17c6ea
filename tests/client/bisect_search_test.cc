// kbctl bisect's search on a fake step function whose answers are known: it finds the first
// slower version, re-runs UNSURE steps with doubled pairs, and ends without a culprit when the
// last version is not slower or a step stays UNSURE.
#include <map>
#include <vector>

#include "client/bisect/search.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using analysis::Verdict;

// A step function answering from a table: versions from `first_slower` on are SLOWER, the
// others SAME; `unsure_below[v] = p` makes version v UNSURE with fewer than p pairs. Records
// every call as (version, pairs).
struct FakeSteps {
  int first_slower = 1 << 30;
  std::map<int, int> unsure_below;
  std::vector<std::pair<int, int>> calls;

  BisectStepFunction Function() {
    return [this](int version, int pairs) -> absl::StatusOr<BisectStep> {
      calls.emplace_back(version, pairs);
      BisectStep s;
      s.verdict.pairs = pairs;
      auto it = unsure_below.find(version);
      if (it != unsure_below.end() && pairs < it->second) {
        s.verdict.verdict = Verdict::kUnsure;
      } else {
        s.verdict.verdict = version >= first_slower ? Verdict::kSlower : Verdict::kSame;
      }
      return s;
    };
  }
};

TEST(BisectSearch, FindsTheFirstSlowerVersionOfEight) {
  for (int culprit = 1; culprit < 8; ++culprit) {
    FakeSteps fake;
    fake.first_slower = culprit;
    absl::StatusOr<BisectResult> r = Bisect(8, fake.Function());
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->outcome, BisectOutcome::kFound);
    EXPECT_EQ(r->culprit, culprit);
    EXPECT_EQ(r->last_good, culprit - 1);
    // The last version, then a binary search over the 7 below it: at most 1 + 3 steps.
    EXPECT_LE(r->steps.size(), 4u) << "culprit " << culprit;
    EXPECT_EQ(fake.calls.front(), std::make_pair(7, 8));
  }
}

TEST(BisectSearch, ReportsNoSlowerVersionWhenTheLastIsNotSlower) {
  FakeSteps fake;  // all SAME
  absl::StatusOr<BisectResult> r = Bisect(8, fake.Function());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome, BisectOutcome::kNoneSlower);
  EXPECT_EQ(r->culprit, -1);
  ASSERT_EQ(r->steps.size(), 1u);
  EXPECT_EQ(r->steps[0].version, 7);
}

TEST(BisectSearch, ReRunsAnUnsureStepWithDoubledPairs) {
  FakeSteps fake;
  fake.first_slower = 5;
  fake.unsure_below[3] = 32;  // decided only at 32 pairs
  absl::StatusOr<BisectResult> r = Bisect(8, fake.Function());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome, BisectOutcome::kFound);
  EXPECT_EQ(r->culprit, 5);
  const std::vector<std::pair<int, int>> at_three = {{3, 8}, {3, 16}, {3, 32}};
  std::vector<std::pair<int, int>> seen;
  for (const auto& c : fake.calls) {
    if (c.first == 3) seen.push_back(c);
  }
  EXPECT_EQ(seen, at_three);
  // Every run is evidence, the UNSURE ones included.
  EXPECT_EQ(r->steps.size(), fake.calls.size());
}

TEST(BisectSearch, StopsUndecidedWhenAStepStaysUnsureAtTheBound) {
  FakeSteps fake;
  fake.first_slower = 2;
  fake.unsure_below[3] = 1000;
  BisectOptions options;
  options.max_pairs = 64;
  absl::StatusOr<BisectResult> r = Bisect(8, fake.Function(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome, BisectOutcome::kUndecided);
  EXPECT_EQ(r->undecided, 3);
  EXPECT_EQ(r->culprit, -1);
  EXPECT_EQ(fake.calls.back(), std::make_pair(3, 64));
  EXPECT_EQ(r->first_slower, 7);
}

TEST(BisectSearch, AStepErrorEndsTheSearch) {
  int calls = 0;
  absl::StatusOr<BisectResult> r = Bisect(4, [&](int, int) -> absl::StatusOr<BisectStep> {
    ++calls;
    return absl::UnavailableError("kbenchd went away");
  });
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(calls, 1);
}

TEST(BisectSearch, RefusesFewerThanTwoVersionsOrBadPairs) {
  FakeSteps fake;
  EXPECT_EQ(Bisect(1, fake.Function()).status().code(), absl::StatusCode::kInvalidArgument);
  BisectOptions bad;
  bad.first_pairs = 16;
  bad.max_pairs = 8;
  EXPECT_EQ(Bisect(4, fake.Function(), bad).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(fake.calls.empty());
}

}  // namespace
}  // namespace kbench::client
