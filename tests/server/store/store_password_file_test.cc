// --store-password-file (issue 24, item 1): the fleet's password reaches libpq from a 0600 file
// named in the URL (libpq's passfile), never from the environment children inherit.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "server/store/store_location.h"
#include "tests/postgres/postgres_server.h"

namespace kbench::store {
namespace {

std::string PasswordFile(mode_t mode) {
  char tmpl[] = "/tmp/kbench pgpass XXXXXX";  // a space, to be percent-encoded
  const int fd = mkstemp(tmpl);
  close(fd);
  std::ofstream(tmpl) << "*:*:*:*:not-the-password\n";
  chmod(tmpl, mode);
  return tmpl;
}

TEST(StorePasswordFile, IsNamedInTheUrlAsLibpqsPassfile) {
  const std::string file = PasswordFile(0600);
  absl::StatusOr<std::string> url = WithPasswordFile("postgres://kbench@db:5432/kbench", file);
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(*url, "postgres://kbench@db:5432/kbench?passfile=/tmp/kbench%20pgpass%20" +
                      file.substr(file.size() - 6));
  EXPECT_EQ(*WithPasswordFile("postgres://db/k?sslmode=require", file).value().rbegin(),
            file.back());
  EXPECT_NE(WithPasswordFile("postgres://db/k?sslmode=require", file)->find("&passfile="),
            std::string::npos);
  unlink(file.c_str());
}

TEST(StorePasswordFile, AFileOthersCanReadIsRefused) {
  const std::string file = PasswordFile(0644);
  const absl::StatusOr<std::string> url = WithPasswordFile("postgres://db/k", file);
  EXPECT_EQ(url.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(url.status().message().find("0600"), std::string::npos) << url.status();
  unlink(file.c_str());
}

TEST(StorePasswordFile, AMissingFileIsRefused) {
  EXPECT_EQ(WithPasswordFile("postgres://db/k", "/nonexistent/pgpass").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// libpq accepts the parameter: a connection with it opens (an unknown URI parameter would not).
TEST(StorePasswordFile, LibpqConnectsWithThePassfileParameter) {
  KBENCH_REQUIRE_POSTGRES();
  const std::string url = kbench::testing::PostgresServer::Shared().NewDatabase();
  ASSERT_FALSE(url.empty()) << kbench::testing::PostgresServer::Shared().reason();
  const std::string file = PasswordFile(0600);
  absl::StatusOr<std::string> with_file = WithPasswordFile(url, file);
  ASSERT_TRUE(with_file.ok()) << with_file.status();
  const StoreLocation location{.data_dir = "", .postgres_url = *with_file, .node = ""};
  EXPECT_TRUE(ConnectStoreDatabase(location).ok());
  unlink(file.c_str());
}

}  // namespace
}  // namespace kbench::store
