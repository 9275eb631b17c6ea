// Unit (issue 24, item 6): the executor's compiled-module cache stays within its total and
// per-owner bounds, evicting the least recently used, an owner's own first.
#include "server/executor/compiled_modules.h"

#include "gtest/gtest.h"

namespace kbench::executor {
namespace {

internal::v1::CompileReply Reply(size_t bytes) {
  internal::v1::CompileReply r;
  r.set_cubin(std::string(bytes, 'c'));
  return r;
}

TEST(CompiledModules, KeepsWhatFitsAndFindsIt) {
  CompiledModules cache(10'000, 5'000);
  cache.Put("a", "alice", Reply(1'000));
  ASSERT_NE(cache.Find("a"), nullptr);
  EXPECT_EQ(cache.Find("a")->cubin().size(), 1'000u);
  EXPECT_EQ(cache.Find("b"), nullptr);
  EXPECT_GE(cache.OwnerBytes("alice"), 1'000u);
}

TEST(CompiledModules, AnOwnerPastItsShareLosesItsOwnOldestNotOthers) {
  CompiledModules cache(100'000, 3'500);
  cache.Put("bob1", "bob", Reply(1'000));
  cache.Put("a1", "alice", Reply(1'000));
  cache.Put("a2", "alice", Reply(1'000));
  cache.Put("a3", "alice", Reply(1'000));
  ASSERT_NE(cache.Find("a1"), nullptr);  // a1 is now alice's most recent; a2 her oldest
  cache.Put("a4", "alice", Reply(1'000));
  EXPECT_EQ(cache.Find("a2"), nullptr);
  EXPECT_NE(cache.Find("a1"), nullptr);
  EXPECT_NE(cache.Find("a4"), nullptr);
  EXPECT_NE(cache.Find("bob1"), nullptr);
  EXPECT_LE(cache.OwnerBytes("alice"), 3'500u);
}

TEST(CompiledModules, TheTotalBoundEvictsTheLeastRecentlyUsedOfAnyone) {
  CompiledModules cache(3'500, 100'000);
  cache.Put("bob1", "bob", Reply(1'000));
  cache.Put("carol1", "carol", Reply(1'000));
  cache.Put("alice1", "alice", Reply(1'000));
  cache.Put("alice2", "alice", Reply(1'000));
  EXPECT_EQ(cache.Find("bob1"), nullptr);
  EXPECT_NE(cache.Find("carol1"), nullptr);
  EXPECT_LE(cache.bytes(), 3'500u);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(CompiledModules, ANewEntryOverTheLimitsStaysForTheJobThatMadeIt) {
  CompiledModules cache(2'000, 1'000);
  cache.Put("small", "alice", Reply(500));
  const internal::v1::CompileReply& big = cache.Put("big", "alice", Reply(5'000));
  EXPECT_EQ(big.cubin().size(), 5'000u);
  EXPECT_NE(cache.Find("big"), nullptr);
  EXPECT_EQ(cache.Find("small"), nullptr);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(CompiledModules, PuttingAKeyAgainReplacesIt) {
  CompiledModules cache(100'000, 100'000);
  cache.Put("k", "alice", Reply(1'000));
  cache.Put("k", "alice", Reply(2'000));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.Find("k")->cubin().size(), 2'000u);
  EXPECT_EQ(cache.bytes(), cache.OwnerBytes("alice"));
}

}  // namespace
}  // namespace kbench::executor
