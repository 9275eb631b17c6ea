// The kbench.v1 gRPC service: validates requests, translates between the API's messages and
// the control plane, maps errors to gRPC status codes. Unary calls are synchronous (they may
// block on the store or on a cancel); the streams (WatchJob, GetArtifact) use the callback API
// and hold no thread while open, under caps in total and per caller identity.
#pragma once

#include <chrono>
#include <fstream>
#include <memory>
#include <string>

#include "kbench/v1/service.grpc.pb.h"
#include "server/api/server_options.h"
#include "server/api/stream_limiter.h"
#include "server/api/stream_reactors.h"
#include "server/api/watch_hub.h"
#include "server/auth/authorizer.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/scheduler.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace kbench::api {

using StreamingBase = v1::KbenchService::WithCallbackMethod_WatchJob<
    v1::KbenchService::WithCallbackMethod_GetArtifact<v1::KbenchService::Service>>;

class KbenchService final : public StreamingBase {
 public:
  // Every handler asks `authorizer` first (who calls, may they); open streams are counted
  // against the caller's identity.
  KbenchService(store::JobStore* jobs, store::ArtifactStore* artifacts,
                scheduler::Scheduler* scheduler, scheduler::JobEvents* events,
                metrics::Metrics* metrics, const ApiOptions& options,
                const auth::Authorizer* authorizer);

  // Ends open WatchJob streams with UNAVAILABLE and refuses new ones (graceful shutdown).
  void StopStreams();

  grpc::Status ListKernels(grpc::ServerContext*, const v1::ListKernelsRequest*,
                           v1::ListKernelsResponse*) override;
  grpc::Status ListDevices(grpc::ServerContext*, const v1::ListDevicesRequest*,
                           v1::ListDevicesResponse*) override;
  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*,
                         v1::SubmitJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*, v1::GetJobResponse*) override;
  grpc::ServerWriteReactor<v1::WatchJobResponse>* WatchJob(grpc::CallbackServerContext*,
                                                           const v1::WatchJobRequest*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*,
                         v1::CancelJobResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*,
                        v1::ListJobsResponse*) override;
  grpc::ServerWriteReactor<v1::GetArtifactResponse>* GetArtifact(
      grpc::CallbackServerContext*, const v1::GetArtifactRequest*) override;
  grpc::Status ListHistory(grpc::ServerContext*, const v1::ListHistoryRequest*,
                           v1::ListHistoryResponse*) override;
  grpc::Status GetLeaderboard(grpc::ServerContext*, const v1::GetLeaderboardRequest*,
                              v1::GetLeaderboardResponse*) override;

 private:
  absl::StatusOr<v1::Job> LoadJob(const std::string& id);
  absl::Status Submit(const v1::SubmitJobRequest& request, v1::SubmitJobResponse* response);
  // An earlier job with the same idempotency key, if it asked for the same spec.
  absl::Status Deduplicate(const std::string& key, const store::JobRecord& earlier,
                           const v1::JobSpec& spec, v1::SubmitJobResponse* response);
  absl::Status List(const v1::ListJobsRequest& request, v1::ListJobsResponse* response);
  // The model name of the device with this id; the text itself when no device has the id.
  std::string DeviceModel(const std::string& device_or_model);
  // The artifact's info and open file, after checking that the job and artifact exist.
  absl::StatusOr<std::pair<v1::ArtifactInfo, std::ifstream>> OpenArtifact(
      const v1::GetArtifactRequest& request);
  // Records the RPC's metrics and converts its status.
  grpc::Status Finish(const char* method, std::chrono::steady_clock::time_point start,
                      const absl::Status& status);
  // Finish, bound to a method and its start, for a stream that ends later.
  FinishFn FinisherOf(const char* method);

  store::JobStore* jobs_;
  store::ArtifactStore* artifacts_;
  scheduler::Scheduler* scheduler_;
  scheduler::JobEvents* events_;
  metrics::Metrics* metrics_;
  const SubmitLimits limits_;
  const int64_t max_list_response_bytes_;
  // Every handler asks it first; see server/auth/authorizer.h.
  const auth::Authorizer* authorizer_;
  StreamLimiter streams_;
  std::unique_ptr<WatchHub> hub_;
};

}  // namespace kbench::api
