// The kbench.v1 gRPC service: validates requests, translates between the API's messages and
// the control plane, maps errors to gRPC status codes (each call is timed and counted once, by
// the interceptor in rpc_observer.h, not here). Unary calls are synchronous (they may
// block on the store or on a cancel); the streams (WatchJob, GetArtifact) use the callback API
// and hold no thread while open, under caps in total and per caller identity.
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/sweep/axes.h"
#include "kbench/v1/service.grpc.pb.h"
#include "server/api/message_limits.h"
#include "server/api/registered_variants.h"
#include "server/api/server_options.h"
#include "server/api/stream_limiter.h"
#include "server/api/stream_reactors.h"
#include "server/api/stream_requests.h"
#include "server/api/watch_hub.h"
#include "server/auth/authorizer.h"
#include "server/metrics/metrics.h"
#include "server/scheduler/clock.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/store/artifact_store.h"
#include "server/store/job_store.h"
#include "server/store/stored_bytes.h"
#include "server/store/sweep_store.h"
#include "server/store/variant_store.h"

namespace kbench::api {

// Unary requests are size-checked per method before they are parsed (message_limits.h); every
// request is parsed by kbench, a malformed one refused naming its defect (request_parsing.h).
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
    // Every handler asks it first (who calls, may they); open streams are counted against the
    // caller's identity.
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
  // Issue 23: submits the re-run that confirms ranked job `job_id` (JobSpec.confirms_job), for
  // the same owner, on any ready device of the same kind (another one where the host or fleet
  // has one free), once: the idempotency key is the job's. Only when every variant's result
  // counts (converged, not drifted); a failure to submit is logged, never the job's.
  void ConfirmRankedRun(const std::string& job_id, const v1::JobSpec& spec,
                        const v1::JobResult& result);

  // The sweep as the API shows it, and its points' jobs when `with_jobs`: what the sweep
  // reporter reports (sweep_service.cc). Thread-safe.
  absl::StatusOr<std::pair<v1::Sweep, std::vector<v1::Job>>> LoadSweep(
      const store::SweepRecord& record, bool with_jobs);

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
  // job_deletion.cc
  grpc::Status DeleteJob(grpc::ServerContext*, const v1::DeleteJobRequest*,
                         v1::DeleteJobResponse*) override;
  grpc::ServerWriteReactor<v1::GetArtifactResponse>* GetArtifact(
      grpc::CallbackServerContext*, const v1::GetArtifactRequest*) override;
  grpc::Status GetUsage(grpc::ServerContext*, const v1::GetUsageRequest*,
                        v1::GetUsageResponse*) override;
  // Sweeps (sweep_service.cc).
  grpc::Status SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest*,
                           v1::SubmitSweepResponse*) override;
  grpc::Status GetSweep(grpc::ServerContext*, const v1::GetSweepRequest*,
                        v1::GetSweepResponse*) override;
  grpc::Status CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest*,
                           v1::CancelSweepResponse*) override;
  grpc::Status ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest*,
                          v1::ListSweepsResponse*) override;
  // Removes a sweep that ended with its points' jobs and its report (sweep_deletion.cc).
  grpc::Status DeleteSweep(grpc::ServerContext*, const v1::DeleteSweepRequest*,
                           v1::DeleteSweepResponse*) override;
  grpc::Status ListHistory(grpc::ServerContext*, const v1::ListHistoryRequest*,
                           v1::ListHistoryResponse*) override;
  grpc::Status GetLeaderboard(grpc::ServerContext*, const v1::GetLeaderboardRequest*,
                              v1::GetLeaderboardResponse*) override;
  // Registered user variants (variant_service.cc).
  grpc::Status AddVariant(grpc::ServerContext*, const v1::AddVariantRequest*,
                          v1::AddVariantResponse*) override;
  grpc::Status GetVariant(grpc::ServerContext*, const v1::GetVariantRequest*,
                          v1::GetVariantResponse*) override;
  grpc::Status ListVariants(grpc::ServerContext*, const v1::ListVariantsRequest*,
                            v1::ListVariantsResponse*) override;
  grpc::Status DeleteVariant(grpc::ServerContext*, const v1::DeleteVariantRequest*,
                             v1::DeleteVariantResponse*) override;

 private:
  // `keep_code`: the user kernels' code stays in the reply (GetJob's include_code).
  absl::StatusOr<v1::Job> LoadJob(const std::string& id, bool keep_code = false);
  absl::Status Submit(const auth::Identity& caller, const v1::SubmitJobRequest& request,
                      v1::SubmitJobResponse* response);
  // Fair share and quotas (usage_service.cc).
  // RESOURCE_EXHAUSTED when a new job `spec` would pass one of its owner's limits (audited).
  // Call under admission_mu_, up to the job's Enqueue, so two submits cannot both take the
  // last slot.
  absl::Status CheckOwnerQuota(const auth::Identity& caller, const v1::JobSpec& spec);
  // RESOURCE_EXHAUSTED when storing `adding` more bytes for `owner` would pass their bound on
  // stored bytes (audited as `action`). Submits call it under admission_mu_, registrations
  // under variants_mu_, so that two on one node cannot both take the last bytes.
  // `adding`: the request's bytes as submitted. With `specs` (the jobs it queues), a kernel's
  // code that the store keeps once counts once, and not at all when the owner keeps it already.
  absl::Status CheckStoredBytesQuota(const auth::Identity& caller, absl::string_view action,
                                     const std::string& owner, int64_t adding,
                                     const std::vector<const v1::JobSpec*>& specs = {});
  absl::Status Usage(const v1::GetUsageRequest& request, v1::GetUsageResponse* response);
  // Sets each queued job's queue_place from `places` (Scheduler::QueuePlaces).
  static void SetQueuePlace(const std::map<std::string, scheduler::QueuePlaceEstimate>& places,
                            v1::Job* job);
  // The device a submit runs on; for a multi-GPU job (devices or gpus asked) its gang, written
  // into the spec (`devices`, lead first; `device` the lead), and the lead returned.
  absl::StatusOr<v1::DeviceInfo> ResolveJobDevices(v1::JobSpec* spec);
  // An earlier job with the same idempotency key, if it asked for the same spec.
  absl::Status Deduplicate(const std::string& key, const store::JobRecord& earlier,
                           const v1::JobSpec& spec, v1::SubmitJobResponse* response);
  absl::Status List(const auth::Identity& caller, const v1::ListJobsRequest& request,
                    v1::ListJobsResponse* response);
  // The model name of the device with this id; the text itself when no device has the id.
  std::string DeviceModel(const std::string& device_or_model);
  // The artifact's info and open file, after checking that the job and artifact exist.
  absl::StatusOr<std::pair<v1::ArtifactInfo, std::unique_ptr<store::ArtifactReader>>> OpenArtifact(
      const auth::Identity& caller, const v1::GetArtifactRequest& request);
  // Sweeps (sweep_service.cc). Every point's job spec, validated for `device`; the points' axis
  // values in *points.
  absl::StatusOr<std::vector<v1::JobSpec>> ValidateSweep(const v1::SweepSpec& spec,
                                                         const v1::DeviceInfo& device,
                                                         std::vector<sweep::Point>* points);
  absl::Status DoSubmitSweep(const v1::SubmitSweepRequest& request, const auth::Identity& caller,
                             const std::string& owner, v1::SubmitSweepResponse* response);
  absl::Status DoCancelSweep(const auth::Identity& caller, const std::string& id,
                             v1::CancelSweepResponse* response);
  bool IsSweepId(const std::string& id) const;
  // Registered variants (variant_service.cc).
  absl::Status ResolveVariants(v1::JobSpec* spec, ResolvedVariants* cache);
  absl::Status DoAddVariant(const auth::Identity& caller, const v1::AddVariantRequest& request,
                            v1::AddVariantResponse* response);
  absl::Status DoGetVariant(const auth::Identity& caller, const v1::GetVariantRequest& request,
                            v1::GetVariantResponse* response);
  absl::Status DoListVariants(const v1::ListVariantsRequest& request,
                              v1::ListVariantsResponse* response);
  absl::Status DoDeleteVariant(const auth::Identity& caller,
                               const v1::DeleteVariantRequest& request);
  absl::StatusOr<std::pair<v1::ArtifactInfo, std::unique_ptr<store::ArtifactReader>>>
  OpenSweepArtifact(const v1::GetArtifactRequest& request);

  store::JobStore* jobs_;
  store::ArtifactStore* artifacts_;
  store::StoredBytes* stored_;
  scheduler::JobQueue* scheduler_;
  scheduler::JobEvents* events_;
  const SubmitLimits limits_;
  const QuotaDefaults quotas_;
  // Held from a submit's quota check to its Enqueue.
  std::mutex admission_mu_;
  const int64_t max_list_response_bytes_;
  // The transport's bound on a reply (ApiOptions.max_send_message_bytes).
  const int64_t max_reply_bytes_;
  // Every handler asks it first; see server/auth/authorizer.h.
  const auth::Authorizer* authorizer_;
  StreamLimiter streams_;
  std::unique_ptr<WatchHub> hub_;
  // Sweeps and registered variants (Parts says what null means).
  store::SweepStore* const sweeps_;
  const std::string sweep_data_dir_;
  const int64_t max_sweep_points_;
  store::VariantStore* const variants_;
  const int64_t max_variants_per_owner_;
  scheduler::Clock* const clock_;
  // A registration's count check and insert, and a removal's owner check and delete.
  std::mutex variants_mu_;
};

}  // namespace kbench::api
