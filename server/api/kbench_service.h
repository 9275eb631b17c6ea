// The kbench.v1 gRPC service: a thin front (issue 27, item 2) over one small service per domain
// — jobs, sweeps, variants, history and leaderboards, usage, fleet — which never see gRPC. Each
// call reaches a handler authenticated once (call_identity.h), timed and counted once
// (rpc_observer.h), held to its method's size limit before it was parsed (message_limits.h);
// the handler looks up who calls, checks the request's field sizes, hands both to its domain
// service and maps the outcome to a gRPC status (Serve below). The two streams (WatchJob,
// GetArtifact) use the callback API and hold no thread while open, under caps in total and per
// caller identity.
#pragma once

#include <memory>
#include <string>

#include "kbench/v1/service.grpc.pb.h"
#include "server/api/call_identity.h"
#include "server/api/fleet_service.h"
#include "server/api/history_service.h"
#include "server/api/job_service.h"
#include "server/api/message_limits.h"
#include "server/api/request_limits.h"
#include "server/api/server_options.h"
#include "server/api/status_mapping.h"
#include "server/api/stream_limiter.h"
#include "server/api/stream_requests.h"
#include "server/api/sweep_service.h"
#include "server/api/usage_service.h"
#include "server/api/variant_service.h"
#include "server/api/watch_hub.h"
#include "server/auth/authorizer.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/stored_bytes.h"
#include "server/store/sweep_store.h"
#include "server/store/variant_store.h"

namespace kbench::api {

class KbenchService final : public WithReceiveLimits<StreamingBase> {
 public:
  // What the service serves from, every part given at construction (none set later); each
  // must outlive the service.
  struct Parts {
    store::JobStore* jobs = nullptr;
    store::ArtifactStore* artifacts = nullptr;
    // What each owner keeps, for their bound on stored bytes.
    store::StoredBytes* stored = nullptr;
    scheduler::JobQueue* scheduler = nullptr;
    scheduler::JobEvents* events = nullptr;
    // Who calls (filled by the interceptor from AuthenticateCallsInto), and what they may do.
    const CallIdentities* callers = nullptr;
    const auth::Authorizer* authorizer = nullptr;
    // The sweep RPCs' store; their reports' files lie under sweep_data_dir (written by
    // server/reports/sweep_reporter.h, which the daemon runs). Null: the sweep RPCs answer
    // UNIMPLEMENTED. A sweep has at most max_sweep_points points.
    store::SweepStore* sweeps = nullptr;
    std::string sweep_data_dir;
    int64_t max_sweep_points = sweep::kMaxPoints;
    // The variant RPCs' store, which also resolves `@name` variants of submitted jobs and
    // sweeps; each owner registers at most max_variants_per_owner. Null: the variant RPCs
    // answer UNIMPLEMENTED.
    store::VariantStore* variants = nullptr;
    int64_t max_variants_per_owner = 0;
    // When a sweep or a variant is created (the scheduler's clock, so that a test drives both).
    scheduler::Clock* clock = scheduler::Clock::Real();
  };
  KbenchService(const Parts& parts, const ApiOptions& options);

  // Ends open WatchJob streams with UNAVAILABLE and refuses new ones (graceful shutdown).
  void StopStreams();

  // The domains the daemon wires to its background work: ranked runs' confirmations (jobs) and
  // the sweep reporter (sweeps).
  JobService& jobs() { return jobs_; }
  SweepService& sweeps() { return sweeps_; }

  grpc::Status ListKernels(grpc::ServerContext*, const v1::ListKernelsRequest*,
                           v1::ListKernelsResponse*) override;
  grpc::Status ListDevices(grpc::ServerContext*, const v1::ListDevicesRequest*,
                           v1::ListDevicesResponse*) override;
  grpc::Status ListNodes(grpc::ServerContext*, const v1::ListNodesRequest*,
                         v1::ListNodesResponse*) override;
  grpc::Status SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest*,
                         v1::SubmitJobResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*, v1::GetJobResponse*) override;
  grpc::ServerWriteReactor<v1::WatchJobResponse>* WatchJob(grpc::CallbackServerContext*,
                                                           const v1::WatchJobRequest*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*,
                         v1::CancelJobResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*,
                        v1::ListJobsResponse*) override;
  grpc::Status DeleteJob(grpc::ServerContext*, const v1::DeleteJobRequest*,
                         v1::DeleteJobResponse*) override;
  grpc::ServerWriteReactor<v1::GetArtifactResponse>* GetArtifact(
      grpc::CallbackServerContext*, const v1::GetArtifactRequest*) override;
  grpc::Status GetUsage(grpc::ServerContext*, const v1::GetUsageRequest*,
                        v1::GetUsageResponse*) override;
  grpc::Status SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest*,
                           v1::SubmitSweepResponse*) override;
  grpc::Status GetSweep(grpc::ServerContext*, const v1::GetSweepRequest*,
                        v1::GetSweepResponse*) override;
  grpc::Status CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest*,
                           v1::CancelSweepResponse*) override;
  grpc::Status ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest*,
                          v1::ListSweepsResponse*) override;
  grpc::Status DeleteSweep(grpc::ServerContext*, const v1::DeleteSweepRequest*,
                           v1::DeleteSweepResponse*) override;
  grpc::Status ListHistory(grpc::ServerContext*, const v1::ListHistoryRequest*,
                           v1::ListHistoryResponse*) override;
  grpc::Status GetLeaderboard(grpc::ServerContext*, const v1::GetLeaderboardRequest*,
                              v1::GetLeaderboardResponse*) override;
  grpc::Status AddVariant(grpc::ServerContext*, const v1::AddVariantRequest*,
                          v1::AddVariantResponse*) override;
  grpc::Status GetVariant(grpc::ServerContext*, const v1::GetVariantRequest*,
                          v1::GetVariantResponse*) override;
  grpc::Status ListVariants(grpc::ServerContext*, const v1::ListVariantsRequest*,
                            v1::ListVariantsResponse*) override;
  grpc::Status DeleteVariant(grpc::ServerContext*, const v1::DeleteVariantRequest*,
                             v1::DeleteVariantResponse*) override;

 private:
  // Every unary handler: who calls, the request's field sizes (where it has a check in
  // request_limits.h), then `method` of `domain`, its outcome mapped to a gRPC status.
  template <class Domain, class Request, class Response>
  grpc::Status Serve(const grpc::ServerContextBase& context, Domain& domain,
                     absl::Status (Domain::*method)(const auth::Identity&, const Request&,
                                                    Response*),
                     const Request* request, Response* response) {
    absl::StatusOr<auth::Identity> caller = callers_->Of(context);
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    if constexpr (requires { CheckRequestSize(*request); }) {
      if (absl::Status s = CheckRequestSize(*request); !s.ok()) return ToGrpcStatus(s);
    }
    return ToGrpcStatus((domain.*method)(*caller, *request, response));
  }

  // Members in dependency order: each domain is built from those above it.
  const CallIdentities* const callers_;
  scheduler::JobEvents* const events_;
  UsageService usage_;
  VariantService variants_;
  JobService jobs_;
  SweepService sweeps_;
  HistoryService history_;
  FleetService fleet_;
  StreamLimiter streams_;
  std::unique_ptr<WatchHub> hub_;
};

}  // namespace kbench::api
