// gRPC server construction options (server_options.h).
#include "server/api/server_options.h"

#include <grpc/grpc.h>
#include <grpcpp/resource_quota.h>

#include "CLI/CLI.hpp"

namespace kbench::api {

void AddApiFlags(CLI::App* app, ApiOptions* options) {
  app->add_option("--max-streams", options->max_streams,
                  "Open WatchJob/GetArtifact streams, in total (beyond: RESOURCE_EXHAUSTED)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--max-streams-per-identity", options->max_streams_per_identity,
                  "Open streams per caller (peer host until authentication)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--host-check-max-bytes", options->limits.host_check_max_bytes,
                  "Host memory a job's float64 correctness check may need (0: half of RAM)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--max-list-response-bytes", options->max_list_response_bytes,
                  "A ListJobs page ends early rather than pass this size")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--keepalive-time-ms", options->keepalive_time_ms,
                  "Ping a connection idle this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--keepalive-timeout-ms", options->keepalive_timeout_ms,
                  "Drop a connection whose ping is unanswered this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--max-connection-idle-ms", options->max_connection_idle_ms,
                  "Close a connection without calls for this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--max-rpc-threads", options->max_rpc_threads,
                  "Unary calls served at once; beyond: RESOURCE_EXHAUSTED")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--rpc-memory-bytes", options->rpc_memory_bytes,
                  "Memory gRPC's transport may hold (its ResourceQuota)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--max-concurrent-uploads", options->max_concurrent_uploads,
                  "SubmitJob, SubmitSweep and AddVariant requests read at once (each may carry "
                  "up to 40 MiB of code); others wait for a turn, then get UNAVAILABLE")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--upload-wait-seconds", options->upload_wait_seconds,
                  "How long an upload request waits for its turn")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  AddQuotaFlags(app, &options->quotas);
}

void ConfigureServerBuilder(const ApiOptions& options, grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, options.keepalive_time_ms);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, options.keepalive_timeout_ms);
  // Watchers sit on open streams without data for minutes: keep pinging them.
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                              options.min_client_ping_interval_ms);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, options.max_connection_idle_ms);
  builder->SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  builder->SetMaxSendMessageSize(options.max_send_message_bytes);
  // The builder keeps its own reference to the quota.
  grpc::ResourceQuota quota("kbenchd");
  quota.SetMaxThreads(options.max_rpc_threads);
  quota.Resize(static_cast<size_t>(options.rpc_memory_bytes));
  builder->SetResourceQuota(quota);
}

}  // namespace kbench::api
