// kbench.v1's jobs (see job_service.h).
#include "server/api/job_service.h"

#include <algorithm>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "server/api/artifact_access.h"
#include "server/api/job_convert.h"
#include "server/api/new_id.h"
#include "server/api/page_token.h"
#include "server/api/request_limits.h"
#include "server/common/logging.h"
#include "server/common/ranked_result.h"
#include "server/common/spec_problem.h"

namespace kbench::api {
namespace {

constexpr int32_t kDefaultPageSize = 50;
constexpr int32_t kMaxPageSize = 1000;

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

JobService::JobService(const Parts& parts, const Bounds& bounds)
    : jobs_(parts.jobs),
      artifacts_(parts.artifacts),
      queue_(parts.queue),
      events_(parts.events),
      authorizer_(parts.authorizer),
      usage_(parts.usage),
      variants_(parts.variants),
      bounds_(bounds) {}

absl::StatusOr<v1::Job> JobService::Load(const std::string& id, bool keep_code) {
  KBENCH_RETURN_IF_ERROR(CheckJobId(id));
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord record, jobs_->Get(id));
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> artifacts, jobs_->Artifacts(id));
  std::optional<v1::Progress> progress;
  if (record.state == store::JobState::kRunning) progress = events_->LatestProgress(id);
  v1::Job job = RecordToJob(record, progress, artifacts, keep_code);
  if (record.state == store::JobState::kQueued) {
    UsageService::SetQueuePlace(queue_->QueuePlaces(), &job);
  }
  return job;
}

absl::Status JobService::Queue(const auth::Identity& caller, const v1::SubmitJobRequest& request,
                               v1::SubmitJobResponse* response) {
  if (!request.has_spec()) return absl::InvalidArgumentError("spec: must be given");
  v1::JobSpec spec = request.spec();
  // Fields this server does not know are not stored, echoed, nor compared on a retry.
  spec.DiscardUnknownFields();
  KBENCH_ASSIGN_OR_RETURN(const v1::DeviceInfo device, ResolveDevices(&spec));
  KBENCH_RETURN_IF_ERROR(variants_->Resolve(&spec, nullptr));
  KBENCH_RETURN_IF_ERROR(ValidateAndNormalize(device, bounds_.limits, &spec));
  if (spec.device().empty()) spec.set_device(device.id());

  store::JobRecord record;
  record.id = NewId("j");
  record.device = device.id();
  record.kernel = spec.kernel();
  record.kind = KindOf(spec.kind());
  record.priority = spec.priority();
  record.idempotency_key = request.idempotency_key();
  record.owner = spec.owner();
  spec.SerializeToString(&record.spec);
  std::unique_lock admission = usage_->HoldAdmission();
  KBENCH_RETURN_IF_ERROR(usage_->CheckOwnerQuota(caller, spec));
  KBENCH_RETURN_IF_ERROR(usage_->CheckStoredBytesQuota(
      caller, "SubmitJob", spec.owner(), static_cast<int64_t>(record.spec.size()), {&spec}));
  // The queue creates the job through its lifecycle (the one writer of a job's state).
  KBENCH_ASSIGN_OR_RETURN(auto inserted, queue_->Submit(record));
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
  UsageService::SetQueuePlace(queue_->QueuePlaces(), response->mutable_job());
  return absl::OkStatus();
}

absl::StatusOr<v1::DeviceInfo> JobService::ResolveDevices(v1::JobSpec* spec) {
  if (spec->devices().empty() && spec->gpus() == 0) return queue_->ResolveDevice(spec->device());
  // A multi-GPU job (issue 30): its gang, resolved once; `device` is its lead.
  const std::vector<std::string> requested(spec->devices().begin(), spec->devices().end());
  KBENCH_ASSIGN_OR_RETURN(const std::vector<v1::DeviceInfo> gang,
                          queue_->ResolveGang(requested, spec->gpus()));
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

void JobService::ConfirmRankedRun(const std::string& job_id, const v1::JobSpec& spec,
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
  if (absl::Status s = Queue(service, request, &response); !s.ok()) {
    logging::LogJob(logging::Level::kWarn, job_id, "its confirming re-run was not submitted",
                    {logging::Field("error", s.ToString())});
    return;
  }
  logging::LogJob(logging::Level::kInfo, job_id, "confirming re-run submitted",
                  {logging::Field("confirmation", response.job().id())});
}

absl::Status JobService::Deduplicate(const std::string& key, const store::JobRecord& earlier,
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
  KBENCH_ASSIGN_OR_RETURN(*response->mutable_job(), Load(earlier.id));
  return absl::OkStatus();
}

absl::Status JobService::Submit(const auth::Identity& caller, const v1::SubmitJobRequest& request,
                                v1::SubmitJobResponse* response) {
  v1::SubmitJobRequest owned = request;  // its owner becomes the caller
  KBENCH_RETURN_IF_ERROR(authorizer_->Submit(caller, &owned));
  if (!owned.spec().confirms_job().empty()) {
    return absl::InvalidArgumentError(
        "confirms_job: set by kbenchd only, for the re-run that confirms a ranked run");
  }
  return Queue(caller, owned, response);
}

absl::Status JobService::Get(const auth::Identity& caller, const v1::GetJobRequest& request,
                             v1::GetJobResponse* response) {
  KBENCH_ASSIGN_OR_RETURN(v1::Job job, Load(request.job_id(), request.include_code()));
  if (request.include_code()) {
    KBENCH_ASSIGN_OR_RETURN(job, WithCodeFor(caller, std::move(job)));
    KBENCH_ASSIGN_OR_RETURN(job, WithinReplyBound(std::move(job), bounds_.max_reply_bytes));
  }
  RedactForViewer(caller, &job);
  *response->mutable_job() = std::move(job);
  return absl::OkStatus();
}

absl::Status JobService::Cancel(const auth::Identity& caller, const v1::CancelJobRequest& request,
                                v1::CancelJobResponse* response) {
  KBENCH_RETURN_IF_ERROR(CheckJobId(request.job_id()));
  KBENCH_RETURN_IF_ERROR(authorizer_->Cancel(caller, request.job_id()));
  KBENCH_RETURN_IF_ERROR(queue_->Cancel(request.job_id(), std::chrono::seconds(10)));
  KBENCH_ASSIGN_OR_RETURN(*response->mutable_job(), Load(request.job_id()));
  return absl::OkStatus();
}

absl::Status JobService::List(const auth::Identity& caller, const v1::ListJobsRequest& request,
                              v1::ListJobsResponse* response) {
  KBENCH_ASSIGN_OR_RETURN(store::JobFilter filter, FilterOf(request));
  const bool full = request.view() == v1::JOB_VIEW_FULL;
  const int32_t page_size = filter.limit;
  // One more than the page to know whether another page exists.
  ++filter.limit;
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::JobRecord> records, jobs_->List(filter));
  std::map<std::string, scheduler::QueuePlaceEstimate> places;
  if (std::any_of(records.begin(), records.end(),
                  [](const auto& r) { return r.state == store::JobState::kQueued; })) {
    places = queue_->QueuePlaces();
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
    UsageService::SetQueuePlace(places, &job);
    if (!full) SummarizeJob(&job);
    // A page holds at least one job, so paging always moves on.
    bytes += job.ByteSizeLong() + 8;
    if (i > 0 && static_cast<int64_t>(bytes) > bounds_.max_list_response_bytes) {
      response->set_next_page_token(EncodePageToken(records[i - 1].seq));
      break;
    }
    *response->add_jobs() = std::move(job);
  }
  return absl::OkStatus();
}

absl::StatusOr<OpenedArtifact> JobService::OpenArtifact(const auth::Identity& caller,
                                                        const v1::GetArtifactRequest& request) {
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

}  // namespace kbench::api
