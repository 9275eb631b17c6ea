// The PostgreSQL connection's text handling, which needs no server: placeholders and redaction.
#include <gtest/gtest.h>

#include "server/store/postgres_db.h"

namespace kbench::store::internal {
namespace {

TEST(PostgresPlaceholders, RewritesNumberedParametersOutsideQuotes) {
  EXPECT_EQ(PostgresPlaceholders("SELECT a FROM t WHERE id = ?1 AND x IN (?2, ?12)"),
            "SELECT a FROM t WHERE id = $1 AND x IN ($2, $12)");
  EXPECT_EQ(PostgresPlaceholders("SELECT '?1', \"?2\" FROM t WHERE y = ?3"),
            "SELECT '?1', \"?2\" FROM t WHERE y = $3");
  EXPECT_EQ(PostgresPlaceholders("SELECT 'it''s ?1' WHERE a = ?1"),
            "SELECT 'it''s ?1' WHERE a = $1");
  // Bare ? are numbered as SQLite numbers them: the largest index so far plus one.
  EXPECT_EQ(PostgresPlaceholders("SELECT a WHERE k = ? AND d = ? AND s IN (?, ?)"),
            "SELECT a WHERE k = $1 AND d = $2 AND s IN ($3, $4)");
  EXPECT_EQ(PostgresPlaceholders("WHERE a = ?3 AND b = ?"), "WHERE a = $3 AND b = $4");
}

TEST(RedactedUrl, NeverShowsAPassword) {
  EXPECT_EQ(RedactedUrl("postgres://kbench:s3cret@db:5432/kbench"),
            "postgres://kbench@db:5432/kbench");
  EXPECT_EQ(RedactedUrl("postgres://kbench@db/kbench?password=s3cret&sslmode=require"),
            "postgres://kbench@db/kbench?password=***&sslmode=require");
  EXPECT_EQ(RedactedUrl("host=db user=kbench password=s3cret dbname=kbench"),
            "host=db user=kbench password=*** dbname=kbench");
  EXPECT_EQ(RedactedUrl("postgres://db/kbench"), "postgres://db/kbench");
}

}  // namespace
}  // namespace kbench::store::internal
