// A real PostgreSQL for tests: Debian's server binaries run initdb in a temporary directory and
// start a private server on a free loopback port (as the unprivileged `postgres` user when the
// tests run as root: PostgreSQL refuses to run as root). One server per test process, started on
// first use and stopped at exit; each test takes a fresh database from it. A chaos test may stop
// and start it again (every test of the process shares it).
#pragma once

#include <string>

namespace kbench::testing {

class PostgresServer {
 public:
  // The process's server, started on first call. Never null; check available().
  static PostgresServer& Shared();

  // False when the binaries are missing or the server did not start; reason() says why.
  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }

  // A new, empty database and its URL ("postgres://kbench@127.0.0.1:PORT/NAME").
  // Empty (with reason() set) when the server is unavailable or the database was not created.
  std::string NewDatabase();

  // pg_ctl stop -m fast: every client loses its connection and new ones are refused. Waits for
  // the server to exit; false (reason() says why) when pg_ctl failed.
  bool Stop();
  // Starts the stopped server again, on the same data directory and port (its databases intact).
  // Waits until it accepts connections; false (reason() says why) when pg_ctl failed.
  bool Start();

  int port() const { return port_; }
  // The server's log (startup errors land here).
  std::string LogPath() const;

  ~PostgresServer();

 private:
  PostgresServer();
  // Finds the binaries, picks the port and runs initdb; false (reason_ set) on failure.
  bool Initialize();
  bool RunAsServerUser(const std::string& command);
  std::string DataDir() const;

  bool available_ = false;
  std::string reason_;
  std::string bin_dir_;
  std::string root_;  // temporary directory: data/, sockets, log
  int port_ = 0;
  int databases_ = 0;
  bool as_postgres_user_ = false;
};

}  // namespace kbench::testing

// Skips the current test, with the reason, unless PostgreSQL can run here.
#define KBENCH_REQUIRE_POSTGRES()                                          \
  do {                                                                     \
    if (!::kbench::testing::PostgresServer::Shared().available()) {        \
      GTEST_SKIP() << "PostgreSQL is not available: "                      \
                   << ::kbench::testing::PostgresServer::Shared().reason() \
                   << " (scripts/install-deps.sh installs postgresql-15)"; \
    }                                                                      \
  } while (0)
