// Starting and stopping the tests' private PostgreSQL.
#include "tests/postgres/postgres_server.h"

#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>

namespace kbench::testing {
namespace {

// Debian installs the server outside PATH; KBENCH_PG_BIN overrides.
std::string FindBinDir() {
  if (const char* env = getenv("KBENCH_PG_BIN"); env != nullptr && *env != '\0') return env;
  for (const char* version : {"17", "16", "15", "14", "13"}) {
    std::string dir = std::string("/usr/lib/postgresql/") + version + "/bin";
    if (std::filesystem::exists(dir + "/initdb") && std::filesystem::exists(dir + "/pg_ctl")) {
      return dir;
    }
  }
  return "";
}

// A loopback port nothing listens on now (the server binds it a moment later).
int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

PostgresServer& PostgresServer::Shared() {
  static PostgresServer* server = new PostgresServer();  // stopped by the atexit below
  return *server;
}

PostgresServer::PostgresServer() {
  available_ = Initialize() && Start();
  if (available_) {
    std::atexit([] { Shared().~PostgresServer(); });
  }
}

bool PostgresServer::RunAsServerUser(const std::string& command) {
  const std::string full =
      as_postgres_user_ ? "runuser -u postgres -- sh -c " + Quoted(command) : command;
  const int rc = std::system((full + " >>" + LogPath() + " 2>&1").c_str());
  return rc == 0;
}

std::string PostgresServer::LogPath() const { return root_ + "/server.log"; }

std::string PostgresServer::DataDir() const { return root_ + "/data"; }

bool PostgresServer::Initialize() {
  bin_dir_ = FindBinDir();
  if (bin_dir_.empty()) {
    reason_ = "no initdb/pg_ctl under /usr/lib/postgresql/*/bin (set KBENCH_PG_BIN)";
    return false;
  }
  if (geteuid() == 0) {
    if (getpwnam("postgres") == nullptr) {
      reason_ = "running as root and there is no unprivileged 'postgres' user to run the server";
      return false;
    }
    as_postgres_user_ = true;
  }
  std::string pattern = "/tmp/kbench-pg-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    reason_ = "mkdtemp failed";
    return false;
  }
  root_ = pattern;
  if (as_postgres_user_) {
    std::system(("chown postgres " + root_).c_str());
  }
  port_ = FreeLoopbackPort();
  // fsync off: a test database need not survive power loss, and the tests run faster.
  if (!RunAsServerUser(bin_dir_ + "/initdb -D " + DataDir() +
                       " -U kbench --auth=trust -E UTF8 --no-sync --no-instructions")) {
    reason_ = "initdb failed; see " + LogPath();
    return false;
  }
  return true;
}

bool PostgresServer::Start() {
  const std::string options = "-p " + std::to_string(port_) + " -k " + root_ +
                              " -c listen_addresses=127.0.0.1 -c fsync=off "
                              "-c max_connections=200";
  if (!RunAsServerUser(bin_dir_ + "/pg_ctl -D " + DataDir() + " -l " + root_ +
                       "/postgres.log -w -t 30 -o \"" + options + "\" start")) {
    reason_ = "pg_ctl start failed; see " + root_ + "/postgres.log";
    return false;
  }
  return true;
}

bool PostgresServer::Stop() {
  if (!RunAsServerUser(bin_dir_ + "/pg_ctl -D " + DataDir() + " -m fast -w -t 30 stop")) {
    reason_ = "pg_ctl stop failed; see " + LogPath();
    return false;
  }
  return true;
}

std::string PostgresServer::NewDatabase() {
  if (!available_) return "";
  const std::string name =
      "kbench_test_" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
  const std::string admin = "host=127.0.0.1 port=" + std::to_string(port_) +
                            " user=kbench dbname=postgres connect_timeout=10";
  PGconn* conn = PQconnectdb(admin.c_str());
  bool created = false;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* result = PQexec(conn, ("CREATE DATABASE " + name).c_str());
    created = PQresultStatus(result) == PGRES_COMMAND_OK;
    if (!created) reason_ = std::string("CREATE DATABASE: ") + PQerrorMessage(conn);
    PQclear(result);
  } else {
    reason_ = std::string("connect: ") + PQerrorMessage(conn);
  }
  PQfinish(conn);
  if (!created) return "";
  return "postgres://kbench@127.0.0.1:" + std::to_string(port_) + "/" + name;
}

PostgresServer::~PostgresServer() {
  if (root_.empty()) return;
  if (available_) {
    RunAsServerUser(bin_dir_ + "/pg_ctl -D " + DataDir() + " -m immediate -w stop");
    available_ = false;
  }
  std::error_code error;
  std::filesystem::remove_all(root_, error);
  root_.clear();
}

}  // namespace kbench::testing
