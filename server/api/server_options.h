// How kbenchd's gRPC server is built: stream caps, keepalive and idle timeouts, message sizes,
// submit limits, and the flags that set them. Kept here so that main.cc only wires them.
#pragma once

#include <grpcpp/server_builder.h>

#include <chrono>
#include <cstdint>

#include "server/api/quotas.h"
#include "server/api/submit_validation.h"

namespace CLI {
class App;
}

namespace kbench::api {

struct ApiOptions {
  SubmitLimits limits;
  // Per-owner and daemon-wide queue limits (quotas.h).
  QuotaDefaults quotas;
  // Open WatchJob + GetArtifact streams, in total and per caller identity. Each costs a
  // reactor and its last message (a few KiB), not a thread.
  int64_t max_streams = 20000;
  int64_t max_streams_per_identity = 10000;
  // How often open watches look for job changes (the latency of a WatchJob update).
  std::chrono::milliseconds watch_poll_interval{50};
  // The server pings a connection idle this long, and drops it when the ping is not answered
  // within the timeout: a vanished client's streams are released in about a minute and a half.
  int keepalive_time_ms = 60'000;
  int keepalive_timeout_ms = 20'000;
  // Clients may ping at most this often (grpc's default, 5 min, turns away kbctl's pings).
  int min_client_ping_interval_ms = 10'000;
  // A connection with no call for this long is closed.
  int max_connection_idle_ms = 5 * 60'000;
  // Largest request; every field is capped far below (request_limits.h), so this only bounds
  // what is read before those checks can answer INVALID_ARGUMENT.
  // Above a user kernel's largest binary (32 MiB, kernels/user_kernel_rules.h) and a spec, so that
  // an oversized one is refused by validation naming the limit, not by the transport.
  int max_receive_message_bytes = 40 << 20;
  int max_send_message_bytes = 4 << 20;
  // gRPC's ResourceQuota for the server (issue 24, item 4). Threads: each unary call in progress
  // holds one of the sync pool's; past the cap a new call is answered RESOURCE_EXHAUSTED at once
  // instead of starting another thread (streams hold none). Memory: what the transport may
  // allocate for reads and its buffers; under pressure gRPC shrinks flow-control windows and,
  // past the quota, closes connections. Far above a busy daemon's few hundred MiB, far below a
  // host's RAM.
  int max_rpc_threads = 512;
  int64_t rpc_memory_bytes = int64_t{2} << 30;
  // Upload requests (SubmitJob, SubmitSweep, AddVariant) read and handled at once; others wait
  // up to upload_wait_seconds for a turn (upload_gate.h).
  int max_concurrent_uploads = 2;
  double upload_wait_seconds = 20;
  // A ListJobs reply ends its page early rather than grow past this, under the 4 MiB a gRPC
  // client accepts by default.
  int64_t max_list_response_bytes = 2 << 20;
};

// Registers --max-streams, --max-streams-per-identity, --host-check-max-bytes, keepalive and
// idle flags, and the quotas' (--max-queued-jobs, ...) on `app`, writing into `options`.
void AddApiFlags(CLI::App* app, ApiOptions* options);

// Applies keepalive, idle and message-size settings and the resource quota to `builder`.
void ConfigureServerBuilder(const ApiOptions& options, grpc::ServerBuilder* builder);

}  // namespace kbench::api
