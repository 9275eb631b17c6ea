// The interleaved A/B's words: the verdict's line (with the --repeat an UNSURE one needs), the
// rule that tells a job id from a variant in --baseline, and --fail-on's exit status.
#include "client/format/paired_view.h"

#include <gtest/gtest.h>

#include "client/errors.h"
#include "client/paired/paired_compare.h"

namespace kbench::client {
namespace {

analysis::PairedVerdict MadeVerdict(analysis::Verdict verdict, double change, double low,
                                    double high) {
  analysis::PairedVerdict v;
  v.pairs = 8;
  v.verdict = verdict;
  v.change = {change, low, high};
  v.min_effect_percent = 3;
  v.resolution_percent = 4.1;
  return v;
}

TEST(PairedVerdictLine, NamesTheChangeItsIntervalAndThePairs) {
  EXPECT_EQ(PairedVerdictLine(MadeVerdict(analysis::Verdict::kSlower, 12.34, 10.1, 14.6)),
            "SLOWER: +12.3 % [+10.1 %, +14.6 %] over 8 pairs (min effect 3 %)");
}

TEST(PairedVerdictLine, AnUnsureVerdictSaysWhatThePairsResolveAndWhatWouldDecide) {
  analysis::PairedVerdict v = MadeVerdict(analysis::Verdict::kUnsure, 1.2, -2.9, 5.3);
  v.pairs_to_resolve = 32;
  EXPECT_EQ(PairedVerdictLine(v),
            "UNSURE: the 8 pairs resolve ±4.1 % (change +1.2 %); run --repeat 32 to resolve 3 %");
  v.pairs_to_resolve = 0;
  EXPECT_NE(PairedVerdictLine(v).find("more than 1024 pairs"), std::string::npos);
}

TEST(IsJobId, TellsKbenchdJobIdsFromVariantNames) {
  EXPECT_TRUE(IsJobId("j-0123456789abcdef"));
  EXPECT_FALSE(IsJobId("j-0123456789ABCDEF"));
  EXPECT_FALSE(IsJobId("j-0123456789abcde"));
  EXPECT_FALSE(IsJobId("tanh_host"));
  EXPECT_FALSE(IsJobId("@j-0123456789abcdef"));
}

TEST(ApplyPairedFailOn, ExitsOneOnlyForAListedVerdict) {
  const std::set<v1::Verdict> slower = {v1::VERDICT_SLOWER};
  const absl::Status hit = ApplyPairedFailOn(analysis::Verdict::kSlower, slower, "B vs A");
  EXPECT_EQ(ExitCodeFor(hit), ExitCode::kFailed);
  EXPECT_NE(hit.message().find("B vs A: SLOWER"), std::string::npos) << hit;
  EXPECT_TRUE(ApplyPairedFailOn(analysis::Verdict::kUnsure, slower, "B vs A").ok());
  EXPECT_TRUE(ApplyPairedFailOn(analysis::Verdict::kSlower, {}, "B vs A").ok());
}

}  // namespace
}  // namespace kbench::client
