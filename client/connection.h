// One gRPC channel to kbenchd and typed calls on it: kbench.v1.KbenchService and
// grpc.health.v1.Health/Check. Every failure comes back as an absl::Status that exits with
// ExitCode::kRpc and carries the gRPC code and message.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kbench/client/health.pb.h"
#include "kbench/v1/service.grpc.pb.h"

namespace kbench::client {

// How kbctl proves who it is and checks whom it talks to.
struct ConnectionSecurity {
  std::string token;    // sent as `authorization: Bearer TOKEN` on every call; never printed
  std::string ca_file;  // PEM roots for the server's certificate; empty: the system's
  bool tls = false;
};

class Connection {
 public:
  // Does not connect yet: the first call does. `timeout` bounds each unary call; streams
  // (WatchJob, GetArtifact) run until the server ends them.
  Connection(const std::string& server, absl::Duration timeout,
             const ConnectionSecurity& security = {});

  const std::string& server() const { return server_; }

  absl::StatusOr<v1::ListKernelsResponse> ListKernels();
  absl::StatusOr<v1::ListDevicesResponse> ListDevices();
  absl::StatusOr<v1::ListNodesResponse> ListNodes();
  absl::StatusOr<v1::SubmitJobResponse> SubmitJob(const v1::SubmitJobRequest& request);
  // `include_code`: with the user kernels' code (only the code's owners and admins may).
  absl::StatusOr<v1::Job> GetJob(const std::string& job_id, bool include_code = false);
  absl::StatusOr<v1::Job> CancelJob(const std::string& job_id);
  absl::StatusOr<v1::DeleteJobResponse> DeleteJob(const std::string& job_id);
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request);
  absl::StatusOr<v1::GetUsageResponse> GetUsage(const v1::GetUsageRequest& request);
  absl::StatusOr<v1::ListHistoryResponse> ListHistory(const v1::ListHistoryRequest& request);
  absl::StatusOr<v1::GetLeaderboardResponse> GetLeaderboard(
      const v1::GetLeaderboardRequest& request);
  // Registered user variants (variants.proto).
  absl::StatusOr<v1::AddVariantResponse> AddVariant(const v1::AddVariantRequest& request);
  absl::StatusOr<v1::GetVariantResponse> GetVariant(const v1::GetVariantRequest& request);
  absl::StatusOr<v1::ListVariantsResponse> ListVariants(const v1::ListVariantsRequest& request);
  absl::Status DeleteVariant(const v1::DeleteVariantRequest& request);
  // Calls on_update with each state the server streams; returns when the stream ends.
  absl::Status WatchJob(const std::string& job_id,
                        const std::function<void(const v1::Job&)>& on_update);
  // Calls on_chunk with each chunk in order; a non-ok status from on_chunk cancels the stream
  // and is returned.
  absl::Status GetArtifact(
      const std::string& job_id, const std::string& name,
      const std::function<absl::Status(const v1::GetArtifactResponse&)>& on_chunk);
  // Sweeps (sweep.proto).
  absl::StatusOr<v1::SubmitSweepResponse> SubmitSweep(const v1::SubmitSweepRequest& request);
  absl::StatusOr<v1::GetSweepResponse> GetSweep(const std::string& sweep_id, bool with_jobs);
  absl::StatusOr<v1::CancelSweepResponse> CancelSweep(const std::string& sweep_id);
  absl::StatusOr<v1::DeleteSweepResponse> DeleteSweep(const std::string& sweep_id);
  absl::StatusOr<v1::ListSweepsResponse> ListSweeps(int32_t page_size);
  // grpc.health.v1.Health/Check; an empty service asks about the server as a whole.
  absl::StatusOr<health::HealthCheckResponse> CheckHealth(const std::string& service);

 private:
  std::unique_ptr<grpc::ClientContext> UnaryContext() const;
  // Adds the bearer token, if any, to a call.
  void Authorize(grpc::ClientContext* context) const;
  // The gRPC status as an absl::Status, with a hint where the cause is probably the address.
  absl::Status Check(const grpc::Status& status) const;

  std::string server_;
  absl::Duration timeout_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::KbenchService::Stub> stub_;
};

}  // namespace kbench::client
