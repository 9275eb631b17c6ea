// The store's tests run on both engines: a value-parameterized fixture whose StoreLocation is a
// temporary SQLite data directory or a fresh database on the tests' private PostgreSQL
// (tests/postgres). PostgreSQL cases skip, saying why, where its binaries are missing.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "server/store/database.h"
#include "server/store/schema.h"
#include "server/store/store_location.h"
#include "tests/postgres/postgres_server.h"
#include "tests/server/store/store_test_util.h"

namespace kbench::store::testing {

enum class Engine { kSqlite, kPostgres };

inline std::string EngineName(const ::testing::TestParamInfo<Engine>& info) {
  return info.param == Engine::kSqlite ? "Sqlite" : "Postgres";
}

class StoreEngineTest : public TempDataDirTest, public ::testing::WithParamInterface<Engine> {
 protected:
  void SetUp() override {
    TempDataDirTest::SetUp();
    location_.data_dir = data_dir_;
    if (GetParam() == Engine::kPostgres) {
      KBENCH_REQUIRE_POSTGRES();
      location_.postgres_url = kbench::testing::PostgresServer::Shared().NewDatabase();
      ASSERT_FALSE(location_.postgres_url.empty())
          << kbench::testing::PostgresServer::Shared().reason();
    }
  }

  bool postgres() const { return GetParam() == Engine::kPostgres; }

  // The first column of the first row of `sql`, run on the database directly (not through the
  // store under test), as text; "" when there is no row.
  std::string QueryDatabase(const std::string& sql) {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    EXPECT_TRUE(db.ok()) << db.status();
    if (!db.ok()) return "";
    absl::StatusOr<std::unique_ptr<internal::Statement>> query = (*db)->Prepare(sql, "test query");
    EXPECT_TRUE(query.ok()) << query.status();
    if (!query.ok()) return "";
    absl::StatusOr<bool> row = (*query)->Step();
    EXPECT_TRUE(row.ok()) << row.status();
    return row.ok() && *row ? (*query)->ColumnText(0) : "";
  }

  // Brings the fresh database to schema `version` (what an older kbenchd left) and runs `sql`
  // on it, before the store under test opens it.
  void WriteAtSchemaVersion(int version, const std::string& sql) {
    absl::StatusOr<std::unique_ptr<internal::Database>> db = ConnectStoreDatabase(location_);
    ASSERT_TRUE(db.ok()) << db.status();
    absl::StatusOr<int> migrated = internal::Migrate(db->get(), version, 0);
    ASSERT_TRUE(migrated.ok()) << migrated.status();
    absl::Status written = (*db)->Exec(sql, "write at an older schema version");
    ASSERT_TRUE(written.ok()) << written;
  }

  StoreLocation location_;
};

#define KBENCH_STORE_ENGINES(Suite)                                                        \
  INSTANTIATE_TEST_SUITE_P(Engines, Suite,                                                 \
                           ::testing::Values(::kbench::store::testing::Engine::kSqlite,    \
                                             ::kbench::store::testing::Engine::kPostgres), \
                           ::kbench::store::testing::EngineName)

}  // namespace kbench::store::testing
