// Suggestions for a mistyped kbctl command (client/command_suggestion.h).
#include "client/command_suggestion.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/client/run_kbctl.h"

namespace kbench::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(EditDistance, CountsSwapsOfNeighboursAsOneEdit) {
  EXPECT_EQ(EditDistance("bench", "bench"), 0);
  EXPECT_EQ(EditDistance("bnech", "bench"), 1);
  EXPECT_EQ(EditDistance("lsit", "list"), 1);
  EXPECT_EQ(EditDistance("bech", "bench"), 1);
  EXPECT_EQ(EditDistance("sweeps", "sweep"), 1);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
}

TEST(SimilarNames, ClosestFirstAndNothingForAKnownName) {
  const std::vector<std::string> commands = {"bench", "compare", "compile", "config", "diff"};
  EXPECT_THAT(SimilarNames("bnech", commands), ElementsAre("bench"));
  EXPECT_THAT(SimilarNames("comp", commands), ElementsAre("compare", "compile"));
  EXPECT_THAT(SimilarNames("bench", commands), IsEmpty());
  EXPECT_THAT(SimilarNames("zzzzzz", commands), IsEmpty());
  EXPECT_THAT(SimilarNames("ad", {"add", "rm", "list"}), ElementsAre("add"));
}

TEST(UnknownCommand, KbctlSuggestsTheCommandAMistypedOneMeant) {
  const Result r = Kbctl({"bnech", "softmax"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'bnech' for 'kbctl'; did you mean 'bench'?"));
  EXPECT_THAT(r.err, HasSubstr("Run 'kbctl --help' for usage."));
}

TEST(UnknownCommand, NestedCommandsAreSuggestedWithTheirPath) {
  const Result r = Kbctl({"variants", "lsit"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("unknown command 'lsit' for 'kbctl variants'; did you mean 'list'?"));
}

TEST(UnknownCommand, AWordFarFromEveryCommandIsNamedWithoutAGuess) {
  const Result r = Kbctl({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command 'frobnicate' for 'kbctl'"));
  EXPECT_THAT(r.err, Not(HasSubstr("did you mean")));
}

TEST(UnknownCommand, AnExtraArgumentOfALeafCommandKeepsCli11sMessage) {
  const Result r = Kbctl({"diff", "a", "b", "c"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, Not(HasSubstr("unknown command")));
}

}  // namespace
}  // namespace kbench::client
