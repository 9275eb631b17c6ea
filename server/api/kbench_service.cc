// The kbench.v1 handlers: each hands its call to a domain service (see kbench_service.h).
#include "server/api/kbench_service.h"

#include <utility>

#include "server/api/artifact_access.h"
#include "server/api/stream_reactors.h"

namespace kbench::api {
namespace {

JobService::Parts JobPartsOf(const KbenchService::Parts& parts, UsageService* usage,
                             VariantService* variants) {
  return {.jobs = parts.jobs,
          .artifacts = parts.artifacts,
          .queue = parts.scheduler,
          .events = parts.events,
          .authorizer = parts.authorizer,
          .usage = usage,
          .variants = variants};
}

SweepService::Parts SweepPartsOf(const KbenchService::Parts& parts, JobService* jobs,
                                 UsageService* usage, VariantService* variants) {
  return {.sweeps = parts.sweeps,
          .data_dir = parts.sweep_data_dir,
          .artifacts = parts.artifacts,
          .job_store = parts.jobs,
          .queue = parts.scheduler,
          .jobs = jobs,
          .usage = usage,
          .variants = variants,
          .authorizer = parts.authorizer,
          .clock = parts.clock};
}

}  // namespace

KbenchService::KbenchService(const Parts& parts, const ApiOptions& options)
    : callers_(parts.callers),
      events_(parts.events),
      usage_(parts.scheduler, parts.stored, parts.authorizer, options.quotas),
      variants_(parts.variants, &usage_, parts.clock, parts.max_variants_per_owner),
      jobs_(JobPartsOf(parts, &usage_, &variants_),
            {.limits = options.limits,
             .max_list_response_bytes = options.max_list_response_bytes,
             .max_reply_bytes = options.max_send_message_bytes}),
      sweeps_(SweepPartsOf(parts, &jobs_, &usage_, &variants_),
              {.limits = options.limits, .max_points = parts.max_sweep_points}),
      history_(parts.jobs, parts.scheduler),
      fleet_(parts.scheduler),
      streams_(options.max_streams, options.max_streams_per_identity),
      hub_(std::make_unique<WatchHub>(
          [events = parts.events](const std::string& id) { return events->Version(id); },
          [this](const std::string& id) { return jobs_.Load(id); }, options.watch_poll_interval)) {
  LimitUploads(options.max_concurrent_uploads, absl::Seconds(options.upload_wait_seconds));
}

void KbenchService::StopStreams() {
  hub_->CloseAll(absl::UnavailableError("kbenchd is shutting down; watch again later"));
}

grpc::Status KbenchService::ListKernels(grpc::ServerContext* context,
                                        const v1::ListKernelsRequest* request,
                                        v1::ListKernelsResponse* response) {
  return Serve(*context, fleet_, &FleetService::ListKernels, request, response);
}

grpc::Status KbenchService::ListDevices(grpc::ServerContext* context,
                                        const v1::ListDevicesRequest* request,
                                        v1::ListDevicesResponse* response) {
  return Serve(*context, fleet_, &FleetService::ListDevices, request, response);
}

grpc::Status KbenchService::ListNodes(grpc::ServerContext* context,
                                      const v1::ListNodesRequest* request,
                                      v1::ListNodesResponse* response) {
  return Serve(*context, fleet_, &FleetService::ListNodes, request, response);
}

grpc::Status KbenchService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  return Serve(*context, jobs_, &JobService::Submit, request, response);
}

grpc::Status KbenchService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::GetJobResponse* response) {
  return Serve(*context, jobs_, &JobService::Get, request, response);
}

grpc::Status KbenchService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::CancelJobResponse* response) {
  return Serve(*context, jobs_, &JobService::Cancel, request, response);
}

grpc::Status KbenchService::ListJobs(grpc::ServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) {
  return Serve(*context, jobs_, &JobService::List, request, response);
}

grpc::Status KbenchService::DeleteJob(grpc::ServerContext* context,
                                      const v1::DeleteJobRequest* request,
                                      v1::DeleteJobResponse* response) {
  return Serve(*context, jobs_, &JobService::Delete, request, response);
}

grpc::Status KbenchService::GetUsage(grpc::ServerContext* context,
                                     const v1::GetUsageRequest* request,
                                     v1::GetUsageResponse* response) {
  return Serve(*context, usage_, &UsageService::Get, request, response);
}

grpc::Status KbenchService::SubmitSweep(grpc::ServerContext* context,
                                        const v1::SubmitSweepRequest* request,
                                        v1::SubmitSweepResponse* response) {
  return Serve(*context, sweeps_, &SweepService::Submit, request, response);
}

grpc::Status KbenchService::GetSweep(grpc::ServerContext* context,
                                     const v1::GetSweepRequest* request,
                                     v1::GetSweepResponse* response) {
  return Serve(*context, sweeps_, &SweepService::Get, request, response);
}

grpc::Status KbenchService::CancelSweep(grpc::ServerContext* context,
                                        const v1::CancelSweepRequest* request,
                                        v1::CancelSweepResponse* response) {
  return Serve(*context, sweeps_, &SweepService::Cancel, request, response);
}

grpc::Status KbenchService::ListSweeps(grpc::ServerContext* context,
                                       const v1::ListSweepsRequest* request,
                                       v1::ListSweepsResponse* response) {
  return Serve(*context, sweeps_, &SweepService::List, request, response);
}

grpc::Status KbenchService::DeleteSweep(grpc::ServerContext* context,
                                        const v1::DeleteSweepRequest* request,
                                        v1::DeleteSweepResponse* response) {
  return Serve(*context, sweeps_, &SweepService::Delete, request, response);
}

grpc::Status KbenchService::ListHistory(grpc::ServerContext* context,
                                        const v1::ListHistoryRequest* request,
                                        v1::ListHistoryResponse* response) {
  return Serve(*context, history_, &HistoryService::List, request, response);
}

grpc::Status KbenchService::GetLeaderboard(grpc::ServerContext* context,
                                           const v1::GetLeaderboardRequest* request,
                                           v1::GetLeaderboardResponse* response) {
  return Serve(*context, history_, &HistoryService::Leaderboard, request, response);
}

grpc::Status KbenchService::AddVariant(grpc::ServerContext* context,
                                       const v1::AddVariantRequest* request,
                                       v1::AddVariantResponse* response) {
  return Serve(*context, variants_, &VariantService::Add, request, response);
}

grpc::Status KbenchService::GetVariant(grpc::ServerContext* context,
                                       const v1::GetVariantRequest* request,
                                       v1::GetVariantResponse* response) {
  return Serve(*context, variants_, &VariantService::Get, request, response);
}

grpc::Status KbenchService::ListVariants(grpc::ServerContext* context,
                                         const v1::ListVariantsRequest* request,
                                         v1::ListVariantsResponse* response) {
  return Serve(*context, variants_, &VariantService::List, request, response);
}

grpc::Status KbenchService::DeleteVariant(grpc::ServerContext* context,
                                          const v1::DeleteVariantRequest* request,
                                          v1::DeleteVariantResponse* response) {
  return Serve(*context, variants_, &VariantService::Delete, request, response);
}

grpc::ServerWriteReactor<v1::WatchJobResponse>* KbenchService::WatchJob(
    grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) {
  using Refused = RefusedStream<v1::WatchJobResponse>;
  absl::StatusOr<auth::Identity> caller = callers_->Of(*context);
  if (!caller.ok()) return new Refused(caller.status());
  absl::StatusOr<StreamSlot> slot = streams_.Acquire(caller->name);
  if (!slot.ok()) return new Refused(slot.status());
  // The version is read before the job, so a change between the two is never missed.
  const uint64_t version = events_->Version(request->job_id());
  absl::StatusOr<v1::Job> job = jobs_.Load(request->job_id());
  if (!job.ok()) return new Refused(job.status());
  auto* reactor =
      new WatchReactor(hub_.get(), *std::move(slot),
                       [viewer = *caller](v1::Job* shown) { RedactForViewer(viewer, shown); });
  // Nothing reaches the reactor before this handler returns, so the hub cannot be handed a
  // reactor that already finished.
  hub_->Add(request->job_id(), version, *job, reactor);
  return reactor;
}

grpc::ServerWriteReactor<v1::GetArtifactResponse>* KbenchService::GetArtifact(
    grpc::CallbackServerContext* context, const v1::GetArtifactRequest* request) {
  using Refused = RefusedStream<v1::GetArtifactResponse>;
  absl::StatusOr<auth::Identity> caller = callers_->Of(*context);
  if (!caller.ok()) return new Refused(caller.status());
  absl::StatusOr<StreamSlot> slot = streams_.Acquire(caller->name);
  if (!slot.ok()) return new Refused(slot.status());
  if (absl::Status s = CheckRequestSize(*request); !s.ok()) return new Refused(s);
  absl::StatusOr<OpenedArtifact> artifact = sweeps_.Owns(request->job_id())
                                                ? sweeps_.OpenArtifact(*request)
                                                : jobs_.OpenArtifact(*caller, *request);
  if (!artifact.ok()) return new Refused(artifact.status());
  return new ArtifactReactor(std::move(artifact->second), std::move(artifact->first),
                             *std::move(slot));
}

}  // namespace kbench::api
