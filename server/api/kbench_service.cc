// kbench.v1 service handlers.
#include "server/api/kbench_service.h"

#include <fstream>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "kernels/catalogue.h"
#include "server/api/job_convert.h"
#include "server/api/page_token.h"
#include "server/api/status_mapping.h"
#include "server/common/spec_problem.h"
#include "server/common/logging.h"

namespace kbench::api {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int32_t kDefaultPageSize = 50;
constexpr int32_t kMaxPageSize = 1000;
constexpr size_t kMaxIdempotencyKey = 128;
constexpr size_t kArtifactChunk = 64 * 1024;

// Job ids: "j-" + 16 hex digits from a CSPRNG-seeded generator: unguessable enough, short.
std::string NewJobId() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          (uint64_t{std::random_device{}()} << 32));
  return absl::StrFormat("j-%016x", rng());
}

v1::KernelInfo KernelInfoOf(const kernels::Operation& op) {
  v1::KernelInfo k;
  k.set_name(op.name);
  k.set_description(op.description);
  for (const auto& d : op.dims) k.add_dims(d);
  for (int64_t d : op.default_shape) k.add_default_shape(d);
  k.set_cost_model(op.cost_model);
  std::set<int> dtypes;
  for (const kernels::VariantDesc& v : op.variants) {
    v1::VariantInfo* vi = k.add_variants();
    vi->set_name(v.name);
    vi->set_description(v.description);
    vi->add_device_kinds(v.backend == kernels::Backend::kHost ? v1::DEVICE_KIND_CPU
                                                              : v1::DEVICE_KIND_CUDA);
    for (kernels::DType d : v.dtypes) {
      vi->add_dtypes(DTypeToProto(d));
      dtypes.insert(DTypeToProto(d));
    }
  }
  for (int d : dtypes) k.add_dtypes(static_cast<v1::DType>(d));
  for (const kernels::ParamDesc& p : op.params) {
    v1::ParamInfo* pi = k.add_params();
    pi->set_name(p.name);
    pi->set_description(p.description);
    pi->set_min(p.min);
    pi->set_max(p.max);
    pi->set_default_value(p.default_value);
  }
  return k;
}

JobKind KindOf(v1::JobKind kind) {
  return kind == v1::JOB_KIND_PROFILE ? JobKind::kProfile : JobKind::kBenchmark;
}

}  // namespace

KbenchService::KbenchService(store::JobStore* jobs, store::ArtifactStore* artifacts,
                             scheduler::Scheduler* scheduler, scheduler::JobEvents* events,
                             metrics::Metrics* metrics, SubmitLimits limits,
                             const auth::Authorizer* authorizer)
    : jobs_(jobs),
      artifacts_(artifacts),
      scheduler_(scheduler),
      events_(events),
      metrics_(metrics),
      limits_(limits),
      authorizer_(authorizer) {}

grpc::Status KbenchService::Finish(const char* method, Clock::time_point start,
                                   const absl::Status& status) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  metrics_->ObserveRpc(method, absl::StatusCodeToString(status.code()), seconds);
  if (!status.ok() && status.code() != absl::StatusCode::kNotFound &&
      status.code() != absl::StatusCode::kInvalidArgument) {
    logging::Log(logging::Level::kDebug, "rpc failed",
                 {logging::Field("method", method), logging::Field("error", status.ToString())});
  }
  return ToGrpcStatus(status);
}

grpc::Status KbenchService::ListKernels(grpc::ServerContext* context,
                                        const v1::ListKernelsRequest*,
                                        v1::ListKernelsResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListKernels");
  if (!caller.ok()) return Finish("ListKernels", start, caller.status());
  for (const kernels::Operation& op : kernels::Catalogue()) *response->add_kernels() = KernelInfoOf(op);
  return Finish("ListKernels", start, absl::OkStatus());
}

grpc::Status KbenchService::ListDevices(grpc::ServerContext* context,
                                        const v1::ListDevicesRequest*,
                                        v1::ListDevicesResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListDevices");
  if (!caller.ok()) return Finish("ListDevices", start, caller.status());
  for (const v1::DeviceInfo& d : scheduler_->Devices()) *response->add_devices() = d;
  return Finish("ListDevices", start, absl::OkStatus());
}

absl::StatusOr<v1::Job> KbenchService::LoadJob(const std::string& id) {
  if (id.empty()) return absl::InvalidArgumentError("job_id: must be given");
  absl::StatusOr<store::JobRecord> record = jobs_->Get(id);
  if (!record.ok()) return record.status();
  absl::StatusOr<std::vector<store::ArtifactRecord>> artifacts = jobs_->Artifacts(id);
  if (!artifacts.ok()) return artifacts.status();
  std::optional<v1::Progress> progress;
  if (record->state == store::JobState::kRunning) progress = events_->LatestProgress(id);
  return RecordToJob(*record, progress, *artifacts);
}

absl::Status KbenchService::Submit(const v1::SubmitJobRequest& request,
                                   v1::SubmitJobResponse* response) {
  if (!request.has_spec()) return absl::InvalidArgumentError("spec: must be given");
  if (request.idempotency_key().size() > kMaxIdempotencyKey) {
    return absl::InvalidArgumentError(
        absl::StrCat("idempotency_key: longer than ", kMaxIdempotencyKey, " bytes"));
  }
  v1::JobSpec spec = request.spec();
  absl::StatusOr<v1::DeviceInfo> device = scheduler_->ResolveDevice(spec.device());
  if (!device.ok()) return device.status();
  if (absl::Status s = ValidateAndNormalize(*device, limits_, &spec); !s.ok()) return s;
  const std::string requested_device = spec.device();
  spec.set_device(requested_device.empty() ? device->id() : requested_device);

  store::JobRecord record;
  record.id = NewJobId();
  record.state = store::JobState::kQueued;
  record.device = device->id();
  record.kernel = spec.kernel();
  record.kind = KindOf(spec.kind());
  record.priority = spec.priority();
  record.idempotency_key = request.idempotency_key();
  record.create_time_ns = absl::GetCurrentTimeNanos();
  spec.SerializeToString(&record.spec);
  absl::StatusOr<std::pair<store::JobRecord, bool>> inserted = jobs_->Insert(record);
  if (!inserted.ok()) return inserted.status();
  const bool created = inserted->second;
  if (!created) {
    // A retried submit: same job, provided it asks for the same thing.
    v1::JobSpec earlier;
    earlier.ParseFromString(inserted->first.spec);
    v1::JobSpec again = spec;
    again.set_device(earlier.device());
    if (earlier.SerializeAsString() != again.SerializeAsString()) {
      return absl::AlreadyExistsError(absl::StrCat(
          "idempotency_key: '", request.idempotency_key(), "' was already used by job ",
          inserted->first.id, " with a different spec"));
    }
    response->set_deduplicated(true);
  } else {
    metrics_->JobSubmitted(record.kind, record.device);
    scheduler_->Enqueue(inserted->first);
    logging::LogJob(logging::Level::kInfo, record.id, "queued",
                    {logging::Field("device", record.device), logging::Field("kind", JobKindName(record.kind)),
                     logging::Field("kernel", spec.kernel())});
  }
  if (created) {
    // The job as accepted (QUEUED); the worker may already be starting it.
    *response->mutable_job() = RecordToJob(inserted->first, std::nullopt, {});
    return absl::OkStatus();
  }
  absl::StatusOr<v1::Job> job = LoadJob(inserted->first.id);
  if (!job.ok()) return job.status();
  *response->mutable_job() = *job;
  return absl::OkStatus();
}

grpc::Status KbenchService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  const auto start = Clock::now();
  v1::SubmitJobRequest owned = *request;  // its owner becomes the caller
  absl::StatusOr<auth::Identity> caller = authorizer_->Submit(*context, &owned);
  if (!caller.ok()) return Finish("SubmitJob", start, caller.status());
  return Finish("SubmitJob", start, Submit(owned, response));
}

grpc::Status KbenchService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::GetJobResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "GetJob");
  if (!caller.ok()) return Finish("GetJob", start, caller.status());
  absl::StatusOr<v1::Job> job = LoadJob(request->job_id());
  if (job.ok()) *response->mutable_job() = *job;
  return Finish("GetJob", start, job.status());
}

absl::Status KbenchService::Watch(grpc::ServerContext* context, const std::string& id,
                                  grpc::ServerWriter<v1::WatchJobResponse>* writer) {
  uint64_t seen = 0;
  while (true) {
    // Read the version before the job, so a change between the two is never missed.
    seen = events_->Version(id);
    absl::StatusOr<v1::Job> job = LoadJob(id);
    if (!job.ok()) return job.status();
    v1::WatchJobResponse response;
    *response.mutable_job() = *job;
    if (!writer->Write(response)) return absl::CancelledError("client went away");
    const v1::JobState state = job->state();
    if (state == v1::JOB_STATE_SUCCEEDED || state == v1::JOB_STATE_FAILED ||
        state == v1::JOB_STATE_CANCELLED) {
      return absl::OkStatus();
    }
    // Wake at least every second to notice a client that left or a server shutting down.
    while (events_->WaitForChange(id, seen, Clock::now() + std::chrono::seconds(1)) == seen) {
      if (context->IsCancelled()) return absl::CancelledError("client went away");
      if (stopping_) return absl::UnavailableError("kbenchd is shutting down; watch again later");
    }
  }
}

grpc::Status KbenchService::WatchJob(grpc::ServerContext* context,
                                     const v1::WatchJobRequest* request,
                                     grpc::ServerWriter<v1::WatchJobResponse>* writer) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "WatchJob");
  if (!caller.ok()) return Finish("WatchJob", start, caller.status());
  return Finish("WatchJob", start, Watch(context, request->job_id(), writer));
}

grpc::Status KbenchService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request,
                                      v1::CancelJobResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Cancel(*context, request->job_id());
  if (!caller.ok()) return Finish("CancelJob", start, caller.status());
  absl::Status status = request->job_id().empty()
                            ? absl::InvalidArgumentError("job_id: must be given")
                            : scheduler_->Cancel(request->job_id(), std::chrono::seconds(10));
  if (status.ok()) {
    absl::StatusOr<v1::Job> job = LoadJob(request->job_id());
    status = job.status();
    if (job.ok()) *response->mutable_job() = *job;
  }
  return Finish("CancelJob", start, status);
}

absl::Status KbenchService::List(const v1::ListJobsRequest& request,
                                 v1::ListJobsResponse* response) {
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: ", request.page_size(), " is negative"));
  }
  store::JobFilter filter;
  filter.limit = request.page_size() == 0 ? kDefaultPageSize
                                          : std::min(request.page_size(), kMaxPageSize);
  if (request.state() != v1::JOB_STATE_UNSPECIFIED) {
    filter.state = StateFromProto(request.state());
    if (!filter.state) {
      return absl::InvalidArgumentError(absl::StrCat("state: unknown enum value ", request.state()));
    }
  }
  filter.kernel = request.kernel();
  filter.device = request.device();
  if (!request.page_token().empty()) {
    absl::StatusOr<int64_t> seq = DecodePageToken(request.page_token());
    if (!seq.ok()) return seq.status();
    filter.before_seq = *seq;
  }
  // One more than the page to know whether another page exists.
  ++filter.limit;
  absl::StatusOr<std::vector<store::JobRecord>> records = jobs_->List(filter);
  if (!records.ok()) return records.status();
  const bool more = static_cast<int32_t>(records->size()) == filter.limit;
  if (more) records->pop_back();
  for (const store::JobRecord& r : *records) {
    absl::StatusOr<std::vector<store::ArtifactRecord>> artifacts = jobs_->Artifacts(r.id);
    if (!artifacts.ok()) return artifacts.status();
    std::optional<v1::Progress> progress;
    if (r.state == store::JobState::kRunning) progress = events_->LatestProgress(r.id);
    *response->add_jobs() = RecordToJob(r, progress, *artifacts);
  }
  if (more && !records->empty()) response->set_next_page_token(EncodePageToken(records->back().seq));
  return absl::OkStatus();
}

grpc::Status KbenchService::ListJobs(grpc::ServerContext* context,
                                     const v1::ListJobsRequest* request,
                                     v1::ListJobsResponse* response) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "ListJobs");
  if (!caller.ok()) return Finish("ListJobs", start, caller.status());
  return Finish("ListJobs", start, List(*request, response));
}

absl::Status KbenchService::StreamArtifact(grpc::ServerContext* context,
                                           const v1::GetArtifactRequest& request,
                                           grpc::ServerWriter<v1::GetArtifactResponse>* writer) {
  if (request.job_id().empty()) return absl::InvalidArgumentError("job_id: must be given");
  if (absl::StatusOr<store::JobRecord> job = jobs_->Get(request.job_id()); !job.ok()) {
    return job.status();
  }
  std::string name = request.name();
  absl::StatusOr<std::vector<store::ArtifactRecord>> all = jobs_->Artifacts(request.job_id());
  if (!all.ok()) return all.status();
  if (name.empty()) {
    if (all->size() != 1) {
      std::vector<std::string> names;
      for (const auto& a : *all) names.push_back(a.name);
      return absl::InvalidArgumentError(absl::StrCat(
          "name: job ", request.job_id(), " has ", all->size(), " artifacts; name one of: ",
          absl::StrJoin(names, ", ")));
    }
    name = all->front().name;
  }
  absl::StatusOr<store::ArtifactRecord> record = jobs_->GetArtifact(request.job_id(), name);
  if (!record.ok()) return record.status();
  std::ifstream in(artifacts_->PathOf(*record), std::ios::binary);
  if (!in) {
    return absl::DataLossError(absl::StrCat("artifact ", name, " of job ", request.job_id(),
                                            " is recorded but its file is missing"));
  }
  v1::GetArtifactResponse chunk;
  v1::ArtifactInfo* info = chunk.mutable_info();
  info->set_name(record->name);
  info->set_size_bytes(record->size_bytes);
  info->set_sha256(record->sha256);
  info->set_content_type(record->content_type);
  std::string buffer(kArtifactChunk, '\0');
  int64_t offset = 0;
  bool first = true;
  while (first || offset < record->size_bytes) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize got = in.gcount();
    if (got <= 0 && !first) break;
    chunk.set_offset(offset);
    chunk.set_data(buffer.data(), static_cast<size_t>(std::max<std::streamsize>(got, 0)));
    if (!writer->Write(chunk)) return absl::CancelledError("client went away");
    if (context->IsCancelled()) return absl::CancelledError("client went away");
    offset += got;
    chunk.clear_info();
    first = false;
    if (got <= 0) break;
  }
  return absl::OkStatus();
}

grpc::Status KbenchService::GetArtifact(grpc::ServerContext* context,
                                        const v1::GetArtifactRequest* request,
                                        grpc::ServerWriter<v1::GetArtifactResponse>* writer) {
  const auto start = Clock::now();
  absl::StatusOr<auth::Identity> caller = authorizer_->Read(*context, "GetArtifact");
  if (!caller.ok()) return Finish("GetArtifact", start, caller.status());
  return Finish("GetArtifact", start, StreamArtifact(context, *request, writer));
}

}  // namespace kbench::api
