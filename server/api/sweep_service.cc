// kbench.v1's sweeps (see sweep_service.h).
#include "server/api/sweep_service.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/protobuf/util/time_util.h"
#include "kernels/catalogue.h"
#include "server/api/job_convert.h"
#include "server/api/new_id.h"
#include "server/api/request_limits.h"
#include "server/api/sweep_points.h"
#include "server/common/kernel_info.h"
#include "server/common/logging.h"

namespace kbench::api {
namespace {

constexpr int32_t kDefaultSweepPage = 20;
constexpr int32_t kMaxSweepPage = 100;

v1::SweepState SweepStateToProto(store::SweepState state) {
  switch (state) {
    case store::SweepState::kRunning:
      return v1::SWEEP_STATE_RUNNING;
    case store::SweepState::kReporting:
      return v1::SWEEP_STATE_REPORTING;
    case store::SweepState::kDone:
      return v1::SWEEP_STATE_DONE;
    case store::SweepState::kCancelled:
      return v1::SWEEP_STATE_CANCELLED;
  }
  return v1::SWEEP_STATE_UNSPECIFIED;
}

google::protobuf::Timestamp TimeOf(int64_t ns) {
  return google::protobuf::util::TimeUtil::NanosecondsToTimestamp(ns);
}

// Counts and ETA from the points' job records: remaining points x the mean run time of the
// ended ones (points run one after another on one device).
void AddProgress(const std::vector<store::JobRecord>& jobs, v1::Sweep* sweep) {
  int64_t ran_ns = 0;
  int ran = 0;
  for (const store::JobRecord& job : jobs) {
    if (!store::IsTerminal(job.state)) continue;
    sweep->set_points_done(sweep->points_done() + 1);
    if (job.state == store::JobState::kFailed) {
      sweep->set_points_failed(sweep->points_failed() + 1);
    }
    if (job.state == store::JobState::kCancelled) {
      sweep->set_points_cancelled(sweep->points_cancelled() + 1);
    } else if (job.start_time_ns > 0 && job.finish_time_ns >= job.start_time_ns) {
      ran_ns += job.finish_time_ns - job.start_time_ns;
      ++ran;
    }
  }
  const int remaining = sweep->points_total() - sweep->points_done();
  if (ran > 0 && remaining > 0 && sweep->state() == v1::SWEEP_STATE_RUNNING) {
    sweep->set_eta_seconds(static_cast<double>(ran_ns) / ran * remaining / 1e9);
  }
}

// What a sweep stores: its spec, and each point's job spec (each a copy of the kernels' code).
int64_t StoredBytesOf(const std::string& sweep_spec, const std::vector<v1::JobSpec>& points) {
  int64_t bytes = static_cast<int64_t>(sweep_spec.size());
  for (const v1::JobSpec& point : points) bytes += static_cast<int64_t>(point.ByteSizeLong());
  return bytes;
}

}  // namespace

SweepService::SweepService(const Parts& parts, const Bounds& bounds)
    : sweeps_(parts.sweeps),
      data_dir_(parts.data_dir),
      artifacts_(parts.artifacts),
      job_store_(parts.job_store),
      queue_(parts.queue),
      jobs_(parts.jobs),
      usage_(parts.usage),
      variants_(parts.variants),
      authorizer_(parts.authorizer),
      clock_(parts.clock),
      bounds_(bounds) {}

absl::Status SweepService::Kept() const {
  if (sweeps_ != nullptr) return absl::OkStatus();
  return absl::UnimplementedError("this kbenchd keeps no sweeps");
}

absl::StatusOr<std::pair<v1::Sweep, std::vector<v1::Job>>> SweepService::Load(
    const store::SweepRecord& record, bool with_jobs) {
  v1::Sweep sweep;
  sweep.set_id(record.id);
  if (!sweep.mutable_spec()->ParseFromString(record.spec)) {
    return absl::DataLossError(absl::StrCat("sweep ", record.id, ": its stored spec is corrupt"));
  }
  sweep.set_state(SweepStateToProto(record.state));
  sweep.set_owner(record.owner);
  sweep.set_error(record.error);
  *sweep.mutable_create_time() = TimeOf(record.create_time_ns);
  if (record.finish_time_ns > 0) *sweep.mutable_finish_time() = TimeOf(record.finish_time_ns);
  sweep.set_points_total(static_cast<int32_t>(record.points.size()));
  std::vector<v1::Job> jobs;
  std::vector<store::JobRecord> records;
  for (const store::SweepPointRecord& p : record.points) {
    v1::SweepPoint* point = sweep.add_points();
    if (!point->ParseFromString(p.point)) {
      return absl::DataLossError(
          absl::StrCat("sweep ", record.id, ": point ", p.index, " is corrupt"));
    }
    point->set_index(p.index);
    point->set_job_id(p.job_id);
    // The record's state is enough for the counts; results are parsed only when asked for.
    KBENCH_ASSIGN_OR_RETURN(store::JobRecord job, job_store_->Get(p.job_id));
    point->set_state(StateToProto(job.state));
    records.push_back(std::move(job));
    if (with_jobs) {
      KBENCH_ASSIGN_OR_RETURN(v1::Job full, jobs_->Load(p.job_id));
      jobs.push_back(std::move(full));
    }
  }
  AddProgress(records, &sweep);
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> artifacts,
                          sweeps_->Artifacts(record.id));
  for (const store::ArtifactRecord& a : artifacts) {
    v1::ArtifactInfo* info = sweep.add_artifacts();
    info->set_name(a.name);
    info->set_size_bytes(a.size_bytes);
    info->set_sha256(a.sha256);
    info->set_content_type(a.content_type);
  }
  return std::make_pair(std::move(sweep), std::move(jobs));
}

absl::StatusOr<std::vector<v1::JobSpec>> SweepService::Validate(const v1::SweepSpec& spec,
                                                                const v1::DeviceInfo& device,
                                                                std::vector<sweep::Point>* points) {
  const kernels::Operation* op = kernels::FindOperation(spec.base().kernel());
  if (op == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("spec.base.kernel: ", QuotePrefix(spec.base().kernel()),
                     " is not in the catalogue (kbctl kernels lists it)"));
  }
  const v1::KernelInfo kernel = KernelInfoOf(*op);
  KBENCH_ASSIGN_OR_RETURN(*points, SweepPoints(spec, kernel, bounds_.max_points));
  std::vector<v1::JobSpec> specs;
  specs.reserve(points->size());
  ResolvedVariants registered;  // read once for all the points
  for (size_t i = 0; i < points->size(); ++i) {
    absl::StatusOr<v1::JobSpec> point = PointSpec(spec.base(), kernel, (*points)[i]);
    absl::Status status = point.status();
    if (status.ok()) status = variants_->Resolve(&*point, &registered);
    if (status.ok()) status = ValidateAndNormalize(device, bounds_.limits, &*point);
    if (!status.ok()) {
      return absl::Status(
          status.code(),
          absl::StrCat("point ", i, " (", DescribePoint((*points)[i]), "): ", status.message()));
    }
    point->set_device(device.id());
    specs.push_back(*std::move(point));
  }
  return specs;
}

absl::Status SweepService::Queue(const auth::Identity& caller, const std::string& owner,
                                 const v1::SubmitSweepRequest& request,
                                 v1::SubmitSweepResponse* response) {
  // Shorter than a job's key: each point's job gets "<key>#<index>".
  KBENCH_RETURN_IF_ERROR(
      CheckLength("idempotency_key", request.idempotency_key(), kMaxIdempotencyKeyBytes - 8));
  v1::SweepSpec spec = request.spec();
  spec.DiscardUnknownFields();
  spec.mutable_base()->set_owner(owner);
  if (!request.idempotency_key().empty()) {
    KBENCH_ASSIGN_OR_RETURN(std::optional<store::SweepRecord> earlier,
                            sweeps_->FindByKey(owner, request.idempotency_key()));
    if (earlier) {
      v1::SweepSpec first;
      first.ParseFromString(earlier->spec);
      if (!google::protobuf::util::MessageDifferencer::Equals(first, spec)) {
        return absl::AlreadyExistsError(
            absl::StrCat("idempotency_key: ", QuotePrefix(request.idempotency_key()),
                         " was already used by sweep ", earlier->id, " with a different spec"));
      }
      response->set_deduplicated(true);
      KBENCH_ASSIGN_OR_RETURN(auto loaded, Load(*earlier, false));
      *response->mutable_sweep() = std::move(loaded.first);
      return absl::OkStatus();
    }
  }
  // One device for every point, so that the points compare (cuda:any, and in a fleet any
  // KIND:any, resolves once); a multi-GPU sweep's gang too (issue 30). The sweep is stored as
  // asked; its points carry what was resolved.
  v1::SweepSpec resolved = spec;
  const bool gang = !spec.base().devices().empty() || spec.base().gpus() != 0;
  KBENCH_ASSIGN_OR_RETURN(const v1::DeviceInfo device,
                          gang ? jobs_->ResolveDevices(resolved.mutable_base())
                               : queue_->ResolveOneDevice(spec.base().device()));
  std::vector<sweep::Point> points;
  KBENCH_ASSIGN_OR_RETURN(std::vector<v1::JobSpec> specs, Validate(resolved, device, &points));

  store::SweepRecord record;
  record.id = NewId("s");
  record.owner = owner;
  record.idempotency_key = request.idempotency_key();
  record.create_time_ns = absl::ToUnixNanos(clock_->Now());
  spec.SerializeToString(&record.spec);
  // The whole sweep, before its first point is queued: a point refused part-way would leave the
  // points before it cancelled but stored.
  std::vector<const v1::JobSpec*> point_specs;
  for (const v1::JobSpec& s : specs) point_specs.push_back(&s);
  KBENCH_RETURN_IF_ERROR(usage_->CheckStoredBytesQuota(
      caller, "SubmitSweep", owner, StoredBytesOf(record.spec, specs), point_specs));
  for (size_t i = 0; i < specs.size(); ++i) {
    v1::SubmitJobRequest job_request;
    *job_request.mutable_spec() = specs[i];
    // A retried sweep (same key) after a failure part-way finds the points it already queued.
    if (!request.idempotency_key().empty()) {
      job_request.set_idempotency_key(absl::StrCat(request.idempotency_key(), "#", i));
    }
    v1::SubmitJobResponse job;
    if (absl::Status s = jobs_->Queue(caller, job_request, &job); !s.ok()) {
      // Every point was validated, so this is the owner's quota, the store or the device
      // failing: the points already queued would run outside any sweep.
      for (const store::SweepPointRecord& queued : record.points) {
        (void)queue_->Cancel(queued.job_id, std::chrono::milliseconds(0));
      }
      return s;
    }
    v1::SweepPoint point;
    for (const auto& [axis, value] : points[i]) {
      v1::AxisValue* v = point.add_values();
      v->set_axis(axis);
      v->set_value(value);
    }
    record.points.push_back({static_cast<int32_t>(i), job.job().id(), point.SerializeAsString()});
  }
  KBENCH_ASSIGN_OR_RETURN(auto inserted, sweeps_->Insert(record));
  response->set_deduplicated(!inserted.second);
  logging::Log(logging::Level::kInfo, "sweep queued",
               {logging::Field("sweep", inserted.first.id),
                logging::Field("points", static_cast<int64_t>(specs.size())),
                logging::Field("kernel", spec.base().kernel())});
  KBENCH_ASSIGN_OR_RETURN(auto loaded, Load(inserted.first, false));
  *response->mutable_sweep() = std::move(loaded.first);
  return absl::OkStatus();
}

absl::Status SweepService::Submit(const auth::Identity& caller,
                                  const v1::SubmitSweepRequest& request,
                                  v1::SubmitSweepResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  // The caller's identity decides the owner exactly as for a job.
  v1::SubmitJobRequest as_job;
  *as_job.mutable_spec() = request.spec().base();
  KBENCH_RETURN_IF_ERROR(CheckRequestSize(as_job));
  KBENCH_RETURN_IF_ERROR(authorizer_->Submit(caller, &as_job));
  return Queue(caller, as_job.spec().owner(), request, response);
}

absl::Status SweepService::Get(const auth::Identity& /*caller*/, const v1::GetSweepRequest& request,
                               v1::GetSweepResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_RETURN_IF_ERROR(CheckLength("sweep_id", request.sweep_id(), kMaxNameBytes));
  KBENCH_ASSIGN_OR_RETURN(const store::SweepRecord record, sweeps_->Get(request.sweep_id()));
  KBENCH_ASSIGN_OR_RETURN(auto loaded, Load(record, request.with_jobs()));
  *response->mutable_sweep() = std::move(loaded.first);
  for (v1::Job& job : loaded.second) *response->add_jobs() = std::move(job);
  return absl::OkStatus();
}

absl::Status SweepService::Cancel(const auth::Identity& caller,
                                  const v1::CancelSweepRequest& request,
                                  v1::CancelSweepResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  KBENCH_RETURN_IF_ERROR(CheckLength("sweep_id", request.sweep_id(), kMaxNameBytes));
  const std::string& id = request.sweep_id();
  KBENCH_ASSIGN_OR_RETURN(store::SweepRecord record, sweeps_->Get(id));
  KBENCH_RETURN_IF_ERROR(auth::Authorizer::DecideCancel(caller, id, record.owner));
  if (record.state == store::SweepState::kDone || record.state == store::SweepState::kCancelled) {
    return absl::FailedPreconditionError(
        absl::StrCat("sweep ", id, " already ended (", SweepStateName(record.state), ")"));
  }
  KBENCH_RETURN_IF_ERROR(sweeps_->RequestCancel(id));
  int cancelled = 0;
  // Last point first: the queued points are gone before the running one ends, so its worker
  // never starts the next. Queued points end at once; a running one is asked to stop, and not
  // waited for.
  for (auto p = record.points.rbegin(); p != record.points.rend(); ++p) {
    absl::Status s = queue_->Cancel(p->job_id, std::chrono::milliseconds(0));
    if (s.ok()) ++cancelled;
    if (!s.ok() && s.code() != absl::StatusCode::kFailedPrecondition) return s;
  }
  response->set_points_cancelled(cancelled);
  record.cancel_requested = true;
  KBENCH_ASSIGN_OR_RETURN(auto loaded, Load(record, false));
  *response->mutable_sweep() = std::move(loaded.first);
  return absl::OkStatus();
}

absl::Status SweepService::List(const auth::Identity& /*caller*/,
                                const v1::ListSweepsRequest& request,
                                v1::ListSweepsResponse* response) {
  KBENCH_RETURN_IF_ERROR(Kept());
  if (request.page_size() < 0) return absl::InvalidArgumentError("page_size: is negative");
  const int32_t limit =
      request.page_size() == 0 ? kDefaultSweepPage : std::min(request.page_size(), kMaxSweepPage);
  KBENCH_ASSIGN_OR_RETURN(const std::vector<store::SweepRecord> records, sweeps_->List(limit));
  for (const store::SweepRecord& r : records) {
    KBENCH_ASSIGN_OR_RETURN(auto loaded, Load(r, false));
    v1::Sweep& sweep = loaded.first;
    sweep.clear_points();  // the list shows counts; GetSweep shows the points
    *response->add_sweeps() = std::move(sweep);
  }
  return absl::OkStatus();
}

bool SweepService::Owns(const std::string& id) const {
  return sweeps_ != nullptr && absl::StartsWith(id, "s-");
}

absl::StatusOr<OpenedArtifact> SweepService::OpenArtifact(const v1::GetArtifactRequest& request) {
  KBENCH_RETURN_IF_ERROR(sweeps_->Get(request.job_id()).status());
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ArtifactRecord> all,
                          sweeps_->Artifacts(request.job_id()));
  for (const store::ArtifactRecord& a : all) {
    if (a.name != request.name()) continue;
    v1::ArtifactInfo info;
    info.set_name(a.name);
    info.set_size_bytes(a.size_bytes);
    info.set_sha256(a.sha256);
    info.set_content_type(a.content_type);
    if (a.relative_path.empty() && artifacts_->chunks() != nullptr) {
      return std::make_pair(std::move(info), artifacts_->chunks()->Open(a));
    }
    std::ifstream in(std::filesystem::path(data_dir_) / a.relative_path, std::ios::binary);
    if (!in) {
      return absl::DataLossError(absl::StrCat("artifact ", a.name, " of sweep ", a.job_id,
                                              " is recorded but its file is missing"));
    }
    return std::make_pair(std::move(info), store::FileReader(std::move(in)));
  }
  return absl::NotFoundError(absl::StrCat("sweep ", request.job_id(), " has no artifact ",
                                          QuotePrefix(request.name()),
                                          all.empty() ? " (its report is not written yet)" : ""));
}

}  // namespace kbench::api
