// kbenchd's flags as parsed (server/kbenchd/main.cc defines them on the command line): everything
// the daemon (server/kbenchd/daemon.h) is built from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/api/server_options.h"
#include "server/auth/server_security.h"

namespace kbench {

struct DaemonFlags {
  // Empty: 127.0.0.1:50051 with credentials (or --open), else the Unix socket.
  std::string listen;
  std::string data_dir = "kbench-data";
  std::string metrics_listen;
  // /metrics on a non-loopback address (it has no TLS nor authentication of its own).
  bool metrics_insecure = false;
  // Owners' names as label values of the tenancy series (default: all count as "other").
  bool metrics_owner_labels = false;
  // Serve the GPU gauges under dcgm-exporter's names too (off where dcgm-exporter runs).
  bool dcgm_gauges = true;
  std::string log_format = "text";
  std::string log_level = "info";
  int64_t cpu_max_bytes = int64_t{4} << 30;
  bool no_cuda = false;
  int64_t artifact_max_bytes = int64_t{10} << 30;
  int64_t artifact_max_age_seconds = int64_t{30} * 24 * 3600;
  std::string job_retention = "90d";
  double executor_hang_slack_seconds = 300;
  // kbench-executor; empty: next to this program.
  std::string executor_path;
  // How fast fair share forgets GPU time ("1h", "30m", "90s").
  std::string fair_share_half_life = "1h";
  // Restart a GPU's executor when the next job is another owner's (issue 23, item 4).
  bool isolate_owners = false;
  // --allow-nvls: the executors' multi-GPU jobs may use NVLink multicast (issue 30; off: a
  // shared host's multicast objects span GPUs outside any one job's devices).
  bool allow_nvls = false;
  // --idle-gate DEVICE=TIMEOUT_S[,MAX_TEMP_C], repeated (server/common/idle_gate_flag.h).
  std::vector<std::string> idle_gates;
  kbench::auth::SecurityFlags security;
  kbench::api::ApiOptions api;
  // The fleet (issue 14): a PostgreSQL URL shared by every node; empty: SQLite in data_dir.
  std::string store;
  // A libpq password file for --store (issue 24: never PGPASSWORD, which children inherit).
  std::string store_password_file;
  // A compile child's address space (MiB) and CPU time (s) (issue 24).
  uint64_t compile_memory_mib = 4096;
  uint64_t compile_cpu_seconds = 60;
  // This node's name in the fleet (default: the host name) and how long it may go without a
  // heartbeat before its jobs are re-queued elsewhere.
  std::string node;
  double node_lease_seconds = 15;
  // Registered user variants each owner may keep (kbctl variants add).
  int64_t max_variants_per_owner = 50;
  // How long a stop (SIGTERM, SIGINT) waits for the calls in flight (server/kbenchd/draining.h).
  double drain_seconds = 10;
};

}  // namespace kbench
