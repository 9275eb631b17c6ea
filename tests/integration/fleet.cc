// A fleet of real kbenchd nodes on the tests' PostgreSQL.
#include "tests/integration/fleet.h"

#include <libpq-fe.h>

#include <cstdio>

#include "gtest/gtest.h"
#include "tests/postgres/postgres_server.h"

namespace kbench::testing {

const std::vector<std::string>& QuotasOutOfTheWay() {
  static const std::vector<std::string> flags = {"--default-max-queued-jobs", "100000",
                                                 "--max-queued-jobs", "100000"};
  return flags;
}

TestFleet::TestFleet(std::string lease_seconds)
    : url_(PostgresServer::Shared().NewDatabase()), lease_seconds_(std::move(lease_seconds)) {}

Daemon& TestFleet::StartNode(const std::string& name, const std::vector<std::string>& extra) {
  dirs_.push_back(std::make_unique<TempDir>());
  std::vector<std::string> args = {"--store",   url_,           "--node",      name,
                                   "--no-cuda", "--node-lease", lease_seconds_};
  args.insert(args.end(), extra.begin(), extra.end());
  nodes_[name] = std::make_unique<Daemon>(dirs_.back()->path(), args);
  return *nodes_[name];
}

std::string TestFleet::NodeOf(const v1::Job& job) {
  return job.device().substr(0, job.device().find('/'));
}

std::string TestFleet::Kbctl(Daemon& node, const std::string& args) {
  const std::string cmd = std::string(KBCTL_PATH) + " --server " + node.address() + " " + args;
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << cmd << "\n" << out;
  return out;
}

Rows TestFleet::Query(const std::string& sql) {
  Rows rows;
  PGconn* conn = PQconnectdb(url_.c_str());
  PGresult* result = PQexec(conn, sql.c_str());
  EXPECT_EQ(PQresultStatus(result), PGRES_TUPLES_OK) << sql << ": " << PQerrorMessage(conn);
  for (int r = 0; r < PQntuples(result); ++r) {
    rows.emplace_back();
    for (int c = 0; c < PQnfields(result); ++c) rows.back().push_back(PQgetvalue(result, r, c));
  }
  PQclear(result);
  PQfinish(conn);
  return rows;
}

}  // namespace kbench::testing
