// Test fixture pieces for a fleet: kbenchd nodes (--no-cuda, each with its own cpu device) on a
// fresh database of the process's PostgreSQL (tests/postgres), and queries on that database.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kbench/v1/service.grpc.pb.h"
#include "tests/integration/daemon.h"

namespace kbench::testing {

// Flags that raise the queue quotas out of the way of a burst of jobs (they count the whole
// fleet): what a test measures is the path, not the refusal.
const std::vector<std::string>& QuotasOutOfTheWay();

class TestFleet {
 public:
  // A new database on PostgresServer::Shared() (url() empty when there is none: the caller
  // skips or fails); nodes hold jobs on leases of `lease_seconds` (--node-lease).
  explicit TestFleet(std::string lease_seconds);

  const std::string& url() const { return url_; }

  // Starts kbenchd as node `name` in its own data directory, with `extra` flags after the
  // fleet's; a node of that name already there (stopped) is replaced.
  Daemon& StartNode(const std::string& name, const std::vector<std::string>& extra = {});

  // The node a job's device names ("b/cpu" -> "b").
  static std::string NodeOf(const v1::Job& job);
  // kbctl's stdout against a node; a non-zero exit fails the test.
  static std::string Kbctl(Daemon& node, const std::string& args);
  // Rows of a query on the fleet's database; a failed query fails the test (no rows).
  Rows Query(const std::string& sql);

 protected:
  std::string url_;
  std::string lease_seconds_;
  std::vector<std::unique_ptr<TempDir>> dirs_;
  std::map<std::string, std::unique_ptr<Daemon>> nodes_;
};

}  // namespace kbench::testing
