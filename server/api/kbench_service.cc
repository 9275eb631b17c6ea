// kbench.v1 service handlers.
#include "server/api/kbench_service.h"

#include <algorithm>
#include <fstream>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "kernels/catalogue.h"
#include "server/api/artifact_access.h"
#include "server/api/history_service.h"
#include "server/api/job_convert.h"
#include "server/api/page_token.h"
#include "server/api/request_limits.h"
#include "server/api/status_mapping.h"
#include "server/common/kernel_info.h"
#include "server/common/logging.h"
#include "server/common/ranked_result.h"
#include "server/common/spec_problem.h"

namespace kbench::api {
namespace {

constexpr int32_t kDefaultPageSize = 50;
constexpr int32_t kMaxPageSize = 1000;

// Job ids: "j-" + 16 hex digits from a CSPRNG-seeded generator: unguessable enough, short.
std::string NewJobId() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          (uint64_t{std::random_device{}()} << 32));
  return absl::StrFormat("j-%016x", rng());
}

JobKind KindOf(v1::JobKind kind) {
  if (kind == v1::JOB_KIND_COMPILE) return JobKind::kCompile;
  return kind == v1::JOB_KIND_PROFILE ? JobKind::kProfile : JobKind::kBenchmark;
}

// ListJobs' device, as a job shows it: "gpu-b/cuda:0" is a node's device, "h100:any" the
// target a job was submitted for (claimed or not), anything else the device on any node.
void SetDeviceFilter(const std::string& device, store::JobFilter* filter) {
  if (const size_t slash = device.find('/'); slash != std::string::npos) {
    filter->node = device.substr(0, slash);
    filter->device = device.substr(slash + 1);
  } else if (absl::EndsWith(device, ":any")) {
    filter->target = device;
  } else {
    filter->device = device;
  }
}

absl::StatusOr<store::JobFilter> FilterOf(const v1::ListJobsRequest& request) {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: ", request.page_size(), " is negative"));
  }
  if (!v1::JobView_IsValid(request.view())) {
    return absl::InvalidArgumentError(absl::StrCat("view: unknown enum value ", request.view()));
  }
  store::JobFilter filter;
  filter.limit =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  if (request.state() != v1::JOB_STATE_UNSPECIFIED) {
    filter.state = StateFromProto(request.state());
    if (!filter.state) {
      return absl::InvalidArgumentError(
          absl::StrCat("state: unknown enum value ", request.state()));
    }
  }
  filter.kernel = request.kernel();
  SetDeviceFilter(request.device(), &filter);
  if (!request.page_token().empty()) {
    KBENCH_ASSIGN_OR_RETURN(filter.before_seq, DecodePageToken(request.page_token()));
  }
  return filter;
}

}  // namespace

KbenchService::KbenchService(const Parts& parts, const ApiOptions& options)
    : jobs_(parts.jobs),
      artifacts_(parts.artifacts),
      stored_(parts.stored),
      scheduler_(parts.scheduler),
      events_(parts.events),
      limits_(options.limits),
      quotas_(options.quotas),
      max_list_response_bytes_(options.max_list_response_bytes),
      max_reply_bytes_(options.max_send_message_bytes),
      authorizer_(parts.authorizer),
      streams_(options.max_streams, options.max_streams_per_identity),
      hub_(std::make_unique<WatchHub>(
          [events = parts.events](const std::string& id) { return events->Version(id); },
          [this](const std::string& id) { return LoadJob(id); }, options.watch_poll_interval)),
      sweeps_(parts.sweeps),
      sweep_data_dir_(parts.sweep_data_dir),
      max_sweep_points_(parts.max_sweep_points),
      variants_(parts.variants),
      max_variants_per_owner_(parts.max_variants_per_owner),
      clock_(parts.clock) {
  LimitUploads(options.max_concurrent_uploads, absl::Seconds(options.upload_wait_seconds));
}

void KbenchService::StopStreams() {
  hub_->CloseAll(absl::UnavailableError("kbenchd is shutting down; watch again later"));
}

grpc::Status KbenchService::ListKernels(grpc::ServerContext* context, const v1::ListKernelsRequest*,
                                        v1::ListKernelsResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListKernels");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const kernels::Operation& op : kernels::Catalogue())
    *response->add_kernels() = KernelInfoOf(op);
  return grpc::Status::OK;
}

grpc::Status KbenchService::ListDevices(grpc::ServerContext* context, const v1::ListDevicesRequest*,
                                        v1::ListDevicesResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListDevices");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (const v1::DeviceInfo& d : scheduler_->Devices()) *response->add_devices() = d;
  return grpc::Status::OK;
}

grpc::Status KbenchService::ListNodes(grpc::ServerContext* context, const v1::ListNodesRequest*,
                                      v1::ListNodesResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListNodes");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  for (v1::NodeInfo& n : scheduler_->Nodes()) *response->add_nodes() = std::move(n);
  return grpc::Status::OK;
}

absl::StatusOr<v1::Job> KbenchService::LoadJob(const std::string& id, bool keep_code) {
  KBENCH_RETURN_IF_ERROR(CheckJobId(id));
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord record, jobs_->Get(id));
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> artifacts, jobs_->Artifacts(id));
  std::optional<v1::Progress> progress;
  if (record.state == store::JobState::kRunning) progress = events_->LatestProgress(id);
  v1::Job job = RecordToJob(record, progress, artifacts, keep_code);
  if (record.state == store::JobState::kQueued) SetQueuePlace(scheduler_->QueuePlaces(), &job);
  return job;
}

absl::Status KbenchService::Submit(const auth::Identity& caller,
                                   const v1::SubmitJobRequest& request,
                                   v1::SubmitJobResponse* response) {
  if (!request.has_spec()) return absl::InvalidArgumentError("spec: must be given");
  KBENCH_RETURN_IF_ERROR(CheckRequestSize(request));
  v1::JobSpec spec = request.spec();
  // Fields this server does not know are not stored, echoed, nor compared on a retry.
  spec.DiscardUnknownFields();
  KBENCH_ASSIGN_OR_RETURN(const v1::DeviceInfo device, ResolveJobDevices(&spec));
  KBENCH_RETURN_IF_ERROR(ResolveVariants(&spec, nullptr));
  KBENCH_RETURN_IF_ERROR(ValidateAndNormalize(device, limits_, &spec));
  if (spec.device().empty()) spec.set_device(device.id());

  store::JobRecord record;
  record.id = NewJobId();
  record.device = device.id();
  record.kernel = spec.kernel();
  record.kind = KindOf(spec.kind());
  record.priority = spec.priority();
  record.idempotency_key = request.idempotency_key();
  record.owner = spec.owner();
  spec.SerializeToString(&record.spec);
  std::unique_lock admission(admission_mu_);
  KBENCH_RETURN_IF_ERROR(CheckOwnerQuota(caller, spec));
  KBENCH_RETURN_IF_ERROR(CheckStoredBytesQuota(caller, "SubmitJob", spec.owner(),
                                               static_cast<int64_t>(record.spec.size()), {&spec}));
  // The queue creates the job through its lifecycle (the one writer of a job's state).
  KBENCH_ASSIGN_OR_RETURN(auto inserted, scheduler_->Submit(record));
  if (!inserted.second) {
    return Deduplicate(request.idempotency_key(), inserted.first, spec, response);
  }
  admission.unlock();
  logging::LogJob(
      logging::Level::kInfo, record.id, "queued",
      {logging::Field("owner", spec.owner()), logging::Field("device", record.device),
       logging::Field("kind", JobKindName(record.kind)), logging::Field("kernel", spec.kernel())});
  // The job as accepted (QUEUED); the worker may already be starting it.
  *response->mutable_job() = RecordToJob(inserted.first, std::nullopt, {});
  SetQueuePlace(scheduler_->QueuePlaces(), response->mutable_job());
  return absl::OkStatus();
}

absl::StatusOr<v1::DeviceInfo> KbenchService::ResolveJobDevices(v1::JobSpec* spec) {
  if (spec->devices().empty() && spec->gpus() == 0)
    return scheduler_->ResolveDevice(spec->device());
  // A multi-GPU job (issue 30): its gang, resolved once; `device` is its lead.
  const std::vector<std::string> requested(spec->devices().begin(), spec->devices().end());
  KBENCH_ASSIGN_OR_RETURN(const std::vector<v1::DeviceInfo> gang,
                          scheduler_->ResolveGang(requested, spec->gpus()));
  const std::string& lead = gang.front().id();
  if (!spec->device().empty() && spec->device() != lead && spec->device() != "cuda:any") {
    return absl::InvalidArgumentError(absl::StrCat("device: '", spec->device(),
                                                   "' is not the first of the job's devices (",
                                                   lead, "); leave it unset"));
  }
  spec->set_device(lead);
  spec->clear_devices();
  // The count is resolved: the devices stand for it, so a retry or a sweep's point names them.
  spec->set_gpus(0);
  // One device is a one-device job, whatever the ask.
  if (gang.size() > 1) {
    for (const v1::DeviceInfo& d : gang) spec->add_devices(d.id());
  }
  return gang.front();
}

void KbenchService::ConfirmRankedRun(const std::string& job_id, const v1::JobSpec& spec,
                                     const v1::JobResult& result) {
  for (const v1::VariantResult& v : result.variants()) {
    if (!RankedResultCounts(v)) return;  // not counted: nothing to confirm
  }
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  request.mutable_spec()->set_confirms_job(job_id);
  // Any ready device of the kind: the least queued, another one where there is one.
  const std::string device = spec.device();
  const size_t colon = device.find(':');
  request.mutable_spec()->set_device(
      colon == std::string::npos ? device : absl::StrCat(device.substr(0, colon), ":any"));
  request.set_idempotency_key(absl::StrCat("confirm/", job_id));
  // kbenchd itself submits; the owner stays the ranked run's (charged by fair share).
  const auth::Identity service{"kbenchd", auth::Role::kAdmin, auth::Identity::Method::kLocal};
  v1::SubmitJobResponse response;
  if (absl::Status s = Submit(service, request, &response); !s.ok()) {
    logging::LogJob(logging::Level::kWarn, job_id, "its confirming re-run was not submitted",
                    {logging::Field("error", s.ToString())});
    return;
  }
  logging::LogJob(logging::Level::kInfo, job_id, "confirming re-run submitted",
                  {logging::Field("confirmation", response.job().id())});
}

absl::Status KbenchService::Deduplicate(const std::string& key, const store::JobRecord& earlier,
                                        const v1::JobSpec& spec, v1::SubmitJobResponse* response) {
  v1::JobSpec first;
  if (!first.ParseFromString(earlier.spec)) {
    return absl::DataLossError(absl::StrCat("job ", earlier.id, ": its stored spec is corrupt"));
  }
  v1::JobSpec again = spec;
  again.set_device(first.device());
  // A retry asking for N devices may resolve to others now: the first job's gang stands.
  *again.mutable_devices() = first.devices();
  // Compared as messages: a map's serialized order is unspecified, so equal specs with params
  // can serialize to different bytes.
  if (!google::protobuf::util::MessageDifferencer::Equals(first, again)) {
    return absl::AlreadyExistsError(absl::StrCat("idempotency_key: ", QuotePrefix(key),
                                                 " was already used by job ", earlier.id,
                                                 " with a different spec"));
  }
  response->set_deduplicated(true);
  KBENCH_ASSIGN_OR_RETURN(*response->mutable_job(), LoadJob(earlier.id));
  return absl::OkStatus();
}

grpc::Status KbenchService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  // Sizes first: nothing oversized reaches the authorizer's messages or the audit log.
  if (absl::Status s = CheckRequestSize(*request); !s.ok()) return ToGrpcStatus(s);
  v1::SubmitJobRequest owned = *request;  // its owner becomes the caller
  absl::StatusOr<auth::Identity> caller = authorizer_->Submit(*context, &owned);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!owned.spec().confirms_job().empty()) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        "confirms_job: set by kbenchd only, for the re-run that confirms a ranked "
        "run"));
  }
  return ToGrpcStatus(Submit(*caller, owned, response));
}

grpc::Status KbenchService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::GetJobResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "GetJob");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::StatusOr<v1::Job> job = LoadJob(request->job_id(), request->include_code());
  if (job.ok() && request->include_code()) job = WithCodeFor(*caller, *std::move(job));
  if (job.ok() && request->include_code())
    job = WithinReplyBound(*std::move(job), max_reply_bytes_);
  if (job.ok()) {
    RedactForViewer(*caller, &*job);
    *response->mutable_job() = *std::move(job);
  }
  return ToGrpcStatus(job.status());
}

grpc::ServerWriteReactor<v1::WatchJobResponse>* KbenchService::WatchJob(
    grpc::CallbackServerContext* context, const v1::WatchJobRequest* request) {
  using Refused = RefusedStream<v1::WatchJobResponse>;
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "WatchJob");
  if (!caller.ok()) return new Refused(caller.status());
  absl::StatusOr<StreamSlot> slot = streams_.Acquire(caller->name);
  if (!slot.ok()) return new Refused(slot.status());
  // The version is read before the job, so a change between the two is never missed.
  const uint64_t version = events_->Version(request->job_id());
  absl::StatusOr<v1::Job> job = LoadJob(request->job_id());
  if (!job.ok()) return new Refused(job.status());
  auto* reactor =
      new WatchReactor(hub_.get(), *std::move(slot),
                       [viewer = *caller](v1::Job* shown) { RedactForViewer(viewer, shown); });
  // Nothing reaches the reactor before this handler returns, so the hub cannot be handed a
  // reactor that already finished.
  hub_->Add(request->job_id(), version, *job, reactor);
  return reactor;
}

grpc::Status KbenchService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::CancelJobResponse* response) {
  absl::Status status = CheckJobId(request->job_id());
  if (status.ok()) status = authorizer_->Cancel(*context, request->job_id()).status();
  if (status.ok()) status = scheduler_->Cancel(request->job_id(), std::chrono::seconds(10));
  if (status.ok()) {
    absl::StatusOr<v1::Job> job = LoadJob(request->job_id());
    status = job.status();
    if (job.ok()) *response->mutable_job() = *job;
  }
  return ToGrpcStatus(status);
}

absl::Status KbenchService::List(const auth::Identity& caller, const v1::ListJobsRequest& request,
                                 v1::ListJobsResponse* response) {
  KBENCH_RETURN_IF_ERROR(CheckRequestSize(request));
  KBENCH_ASSIGN_OR_RETURN(store::JobFilter filter, FilterOf(request));
  const bool full = request.view() == v1::JOB_VIEW_FULL;
  const int32_t page_size = filter.limit;
  // One more than the page to know whether another page exists.
  ++filter.limit;
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::JobRecord> records, jobs_->List(filter));
  std::map<std::string, scheduler::QueuePlaceEstimate> places;
  if (std::any_of(records.begin(), records.end(),
                  [](const auto& r) { return r.state == store::JobState::kQueued; })) {
    places = scheduler_->QueuePlaces();
  }
  size_t bytes = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const store::JobRecord& r = records[i];
    if (static_cast<int32_t>(i) == page_size) {
      response->set_next_page_token(EncodePageToken(records[i - 1].seq));
      break;
    }
    KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> artifacts, jobs_->Artifacts(r.id));
    std::optional<v1::Progress> progress;
    if (r.state == store::JobState::kRunning) progress = events_->LatestProgress(r.id);
    v1::Job job = RecordToJob(r, progress, artifacts);
    RedactForViewer(caller, &job);
    SetQueuePlace(places, &job);
    if (!full) SummarizeJob(&job);
    // A page holds at least one job, so paging always moves on.
    bytes += job.ByteSizeLong() + 8;
    if (i > 0 && static_cast<int64_t>(bytes) > max_list_response_bytes_) {
      response->set_next_page_token(EncodePageToken(records[i - 1].seq));
      break;
    }
    *response->add_jobs() = std::move(job);
  }
  return absl::OkStatus();
}

grpc::Status KbenchService::ListJobs(grpc::ServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListJobs");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ToGrpcStatus(List(*caller, *request, response));
}

absl::StatusOr<std::pair<v1::ArtifactInfo, std::unique_ptr<store::ArtifactReader>>>
KbenchService::OpenArtifact(const auth::Identity& caller, const v1::GetArtifactRequest& request) {
  KBENCH_RETURN_IF_ERROR(CheckRequestSize(request));
  if (IsSweepId(request.job_id())) return OpenSweepArtifact(request);
  KBENCH_ASSIGN_OR_RETURN(const store::JobRecord job, jobs_->Get(request.job_id()));
  v1::JobSpec spec;
  if (!spec.ParseFromString(job.spec)) {
    return absl::DataLossError(absl::StrCat("job ", job.id, ": its stored spec is unreadable"));
  }
  std::string name = request.name();
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> all,
                          jobs_->Artifacts(request.job_id()));
  if (name.empty()) {
    if (all.size() != 1) {
      std::vector<std::string> names;
      names.reserve(all.size());
      for (const auto& a : all) names.push_back(a.name);
      return absl::InvalidArgumentError(
          absl::StrCat("name: job ", request.job_id(), " has ", all.size(),
                       " artifacts; name one of: ", absl::StrJoin(names, ", ")));
    }
    name = all.front().name;
  }
  const bool owner_only = IsOwnerOnlyArtifact(spec, name);
  const absl::Status decision = DecideArtifactRead(caller, spec, job.id, name);
  if (owner_only) {
    authorizer_->AuditOutcome(caller, "GetArtifact", absl::StrCat(job.id, "/", name), decision);
  }
  KBENCH_RETURN_IF_ERROR(decision);
  KBENCH_ASSIGN_OR_RETURN(store::ArtifactRecord record, jobs_->GetArtifact(request.job_id(), name));
  absl::StatusOr<std::unique_ptr<store::ArtifactReader>> in = artifacts_->Open(record);
  // Retention may evict it between the lookup and the open: then it is gone, not damaged.
  if (absl::IsDataLoss(in.status()) &&
      absl::IsNotFound(jobs_->GetArtifact(job.id, name).status())) {
    return absl::NotFoundError(
        absl::StrCat("artifact ", name, " of job ", job.id, " was evicted by retention just now"));
  }
  if (!in.ok()) return in.status();
  v1::ArtifactInfo info;
  info.set_name(record.name);
  info.set_size_bytes(record.size_bytes);
  info.set_sha256(record.sha256);
  info.set_content_type(record.content_type);
  info.set_owner_only(owner_only);
  return std::make_pair(std::move(info), *std::move(in));
}

grpc::Status KbenchService::ListHistory(grpc::ServerContext* context,
                                        const v1::ListHistoryRequest* request,
                                        v1::ListHistoryResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListHistory");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::Status checked = CheckRequestSize(*request);
  if (!checked.ok()) return ToGrpcStatus(checked);
  return ToGrpcStatus(api::ListHistory(*jobs_, *request, response));
}

std::string KbenchService::DeviceModel(const std::string& device_or_model) {
  for (const v1::DeviceInfo& d : scheduler_->Devices()) {
    if (d.id() == device_or_model) return d.name();
  }
  return device_or_model;
}

grpc::Status KbenchService::GetLeaderboard(grpc::ServerContext* context,
                                           const v1::GetLeaderboardRequest* request,
                                           v1::GetLeaderboardResponse* response) {
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "GetLeaderboard");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  absl::Status checked = CheckRequestSize(*request);
  if (!checked.ok()) return ToGrpcStatus(checked);
  auto model_of = [this](const std::string& device) { return DeviceModel(device); };
  return ToGrpcStatus(api::GetLeaderboard(*jobs_, model_of, *request, response));
}

grpc::ServerWriteReactor<v1::GetArtifactResponse>* KbenchService::GetArtifact(
    grpc::CallbackServerContext* context, const v1::GetArtifactRequest* request) {
  using Refused = RefusedStream<v1::GetArtifactResponse>;
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "GetArtifact");
  if (!caller.ok()) return new Refused(caller.status());
  absl::StatusOr<StreamSlot> slot = streams_.Acquire(caller->name);
  if (!slot.ok()) return new Refused(slot.status());
  absl::StatusOr<std::pair<v1::ArtifactInfo, std::unique_ptr<store::ArtifactReader>>> artifact =
      OpenArtifact(*caller, *request);
  if (!artifact.ok()) return new Refused(artifact.status());
  return new ArtifactReactor(std::move(artifact->second), std::move(artifact->first),
                             *std::move(slot));
}

}  // namespace kbench::api
