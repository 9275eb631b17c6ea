// VariantStore on both engines: a registered variant is read back whole, a second of the same
// name per operation is refused, names are per operation, lists are summaries in order,
// removal and per-owner counts; refused on a database the job store has not migrated.
#include "server/store/variant_store.h"

#include <gtest/gtest.h>

#include "server/store/job_store.h"
#include "tests/server/store/store_engines.h"

namespace kbench::store {
namespace {

VariantRecord VariantOf(const std::string& op, const std::string& name, const std::string& owner) {
  VariantRecord r;
  r.operation = op;
  r.name = name;
  r.owner = owner;
  r.form = "cuda";
  r.sha256 = std::string(64, 'a');
  // Bytes a text column would mangle: NULs and high bytes.
  r.kernel = std::string("\x0a\x00\xff\x10kernel", 10) + name;
  r.code_bytes = static_cast<int64_t>(r.kernel.size());
  r.create_time_ns = 1'700'000'000'000'000'000;
  return r;
}

class VariantStoreTest : public testing::StoreEngineTest {
 protected:
  std::unique_ptr<VariantStore> Open() {
    EXPECT_TRUE(JobStore::Open(location_).ok());
    auto store = VariantStore::Open(location_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }
};

TEST_P(VariantStoreTest, ReadsBackWhatWasRegistered) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const VariantRecord added = VariantOf("softmax", "@online", "alice");
  ASSERT_TRUE(store->Add(added).ok());
  auto got = store->Get("softmax", "@online");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->kernel, added.kernel);
  EXPECT_EQ((*got)->owner, "alice");
  EXPECT_EQ((*got)->form, "cuda");
  EXPECT_EQ((*got)->sha256, added.sha256);
  EXPECT_EQ((*got)->code_bytes, added.code_bytes);
  EXPECT_EQ((*got)->create_time_ns, added.create_time_ns);
  EXPECT_FALSE(store->Get("softmax", "@other")->has_value());
  EXPECT_FALSE(store->Get("gelu", "@online")->has_value());
}

TEST_P(VariantStoreTest, ANameIsTakenOncePerOperation) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Add(VariantOf("softmax", "@online", "alice")).ok());
  const absl::Status again = store->Add(VariantOf("softmax", "@online", "bob"));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists) << again;
  EXPECT_NE(again.message().find("@online"), std::string::npos) << again;
  EXPECT_EQ((*store->Get("softmax", "@online"))->owner, "alice");  // the first one stays
  EXPECT_TRUE(store->Add(VariantOf("gelu", "@online", "bob")).ok());
}

TEST_P(VariantStoreTest, ListsSummariesByOperationThenName) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Add(VariantOf("softmax", "@b", "alice")).ok());
  ASSERT_TRUE(store->Add(VariantOf("gelu", "@z", "bob")).ok());
  ASSERT_TRUE(store->Add(VariantOf("softmax", "@a", "bob")).ok());
  auto all = store->List("");
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].operation + (*all)[0].name, "gelu@z");
  EXPECT_EQ((*all)[1].operation + (*all)[1].name, "softmax@a");
  EXPECT_EQ((*all)[2].operation + (*all)[2].name, "softmax@b");
  EXPECT_TRUE((*all)[0].kernel.empty());
  EXPECT_GT((*all)[0].code_bytes, 0);
  auto softmax = store->List("softmax");
  ASSERT_TRUE(softmax.ok());
  ASSERT_EQ(softmax->size(), 2u);
  EXPECT_EQ((*softmax)[0].name, "@a");
}

TEST_P(VariantStoreTest, RemovesAndCountsPerOwner) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Add(VariantOf("softmax", "@a", "alice")).ok());
  ASSERT_TRUE(store->Add(VariantOf("gelu", "@b", "alice")).ok());
  ASSERT_TRUE(store->Add(VariantOf("gelu", "@c", "bob")).ok());
  EXPECT_EQ(*store->CountOwnedBy("alice"), 2);
  EXPECT_EQ(*store->CountOwnedBy("carol"), 0);
  EXPECT_TRUE(*store->Remove("softmax", "@a"));
  EXPECT_FALSE(*store->Remove("softmax", "@a"));
  EXPECT_EQ(*store->CountOwnedBy("alice"), 1);
  EXPECT_FALSE(store->Get("softmax", "@a")->has_value());
  ASSERT_TRUE(store->Add(VariantOf("softmax", "@a", "bob")).ok());  // the name is free again
}

TEST_P(VariantStoreTest, RefusesADatabaseTheJobStoreDidNotCreate) {
  auto store = VariantStore::Open(location_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition) << store.status();
}

KBENCH_STORE_ENGINES(VariantStoreTest);

}  // namespace
}  // namespace kbench::store
