// The kbench.v1 gRPC service: validates requests, translates between the API's messages and
// the control plane, maps errors to gRPC status codes. Sync API: WatchJob and GetArtifact
// hold one server thread each while they stream.
#pragma once

#include <atomic>
#include <string>

#include "kbench/v1/service.grpc.pb.h"
#include "server/api/submit_validation.h"
#include "server/auth/authorizer.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/scheduler.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"

namespace kbench::api {

class KbenchService final : public v1::KbenchService::Service {
 public:
  KbenchService(store::JobStore* jobs, store::ArtifactStore* artifacts,
                scheduler::Scheduler* scheduler, scheduler::JobEvents* events,
                metrics::Metrics* metrics, SubmitLimits limits,
                const auth::Authorizer* authorizer);

  // Ends open WatchJob streams promptly (graceful shutdown).
  void StopStreams() { stopping_ = true; }

  grpc::Status ListKernels(grpc::ServerContext*, const v1::ListKernelsRequest*,
                           v1::ListKernelsResponse*) override;
  grpc::Status ListDevices(grpc::ServerContext*, const v1::ListDevicesRequest*,
                           v1::ListDevicesResponse*) override;
  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*,
                         v1::SubmitJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*,
                      v1::GetJobResponse*) override;
  grpc::Status WatchJob(grpc::ServerContext*, const v1::WatchJobRequest*,
                        grpc::ServerWriter<v1::WatchJobResponse>*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*,
                         v1::CancelJobResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*,
                        v1::ListJobsResponse*) override;
  grpc::Status GetArtifact(grpc::ServerContext*, const v1::GetArtifactRequest*,
                           grpc::ServerWriter<v1::GetArtifactResponse>*) override;

 private:
  absl::StatusOr<v1::Job> LoadJob(const std::string& id);
  absl::Status Submit(const v1::SubmitJobRequest& request, v1::SubmitJobResponse* response);
  absl::Status List(const v1::ListJobsRequest& request, v1::ListJobsResponse* response);
  absl::Status Watch(grpc::ServerContext* context, const std::string& id,
                     grpc::ServerWriter<v1::WatchJobResponse>* writer);
  absl::Status StreamArtifact(grpc::ServerContext* context, const v1::GetArtifactRequest& request,
                              grpc::ServerWriter<v1::GetArtifactResponse>* writer);
  // Records the RPC's metrics and converts its status.
  grpc::Status Finish(const char* method, std::chrono::steady_clock::time_point start,
                      const absl::Status& status);

  store::JobStore* jobs_;
  store::ArtifactStore* artifacts_;
  scheduler::Scheduler* scheduler_;
  scheduler::JobEvents* events_;
  metrics::Metrics* metrics_;
  SubmitLimits limits_;
  // Every handler asks it first (who calls, may they); see server/auth/authorizer.h.
  const auth::Authorizer* authorizer_;
  std::atomic<bool> stopping_{false};
};

}  // namespace kbench::api
