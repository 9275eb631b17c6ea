// The node's coordinator and the fleet-wide answers of the JobQueue interface.
#include "server/fleet/fleet_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "google/protobuf/util/time_util.h"
#include "server/common/logging.h"
#include "server/fleet/gang_target.h"
#include "server/store/resilient_job_store.h"

namespace kbench::fleet {
namespace {

using logging::Field;
using logging::Level;

// The jobs table's trigger announces every change of a job's state, node or cancel request here.
constexpr char kJobsChannel[] = "kbench_jobs";

std::string DevicesBlob(const std::vector<v1::DeviceInfo>& devices) {
  v1::DeviceList list;
  for (const v1::DeviceInfo& d : devices) *list.add_devices() = d;
  return list.SerializeAsString();
}

}  // namespace

FleetQueue::FleetQueue(FleetOptions options, scheduler::Scheduler* local, store::JobStore* jobs,
                       store::FleetStore* fleet, scheduler::JobEvents* events)
    : options_(std::move(options)),
      local_(local),
      lifecycle_(&local->lifecycle()),
      clock_(local->clock()),
      jobs_(jobs),
      fleet_(fleet),
      events_(events) {}

int64_t FleetQueue::NowNs() const { return absl::ToUnixNanos(clock_->Now()); }

FleetQueue::~FleetQueue() { Shutdown(); }

absl::Status FleetQueue::Start() {
  const int64_t now = NowNs();
  KBENCH_RETURN_IF_ERROR(
      fleet_->RegisterNode(store::NodeRecord{.name = options_.node,
                                             .address = options_.address,
                                             .version = options_.version,
                                             .start_time_ns = now,
                                             .heartbeat_ns = now,
                                             .devices = DevicesBlob(local_->Devices()),
                                             .claimed_jobs = 0}));
  // What this node held when it last stopped (a crash, a kill) goes back to the fleet now
  // rather than after the lease.
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::ReapedJob> released,
                          lifecycle_->ReleaseNode(*fleet_, options_.node, options_.max_attempts));
  KBENCH_ASSIGN_OR_RETURN(listener_,
                          store::PostgresListener::Start(options_.store_url, kJobsChannel,
                                                         [this](const std::string& id) {
                                                           std::lock_guard lock(mu_);
                                                           if (!id.empty()) changed_.push_back(id);
                                                           woken_ = true;
                                                           cv_.notify_all();
                                                         }));
  local_->SetIdleObserver([this] { Wake(); });
  nodes_ = ReadNodes();
  coordinator_ = std::thread([this] { CoordinatorLoop(); });
  logging::Log(Level::kInfo, "node joined the fleet",
               {Field("node", options_.node), Field("released_jobs", released.size())});
  return absl::OkStatus();
}

void FleetQueue::ListeningOn(const std::string& address) {
  if (absl::Status s = fleet_->SetNodeAddress(options_.node, address); !s.ok()) {
    logging::Log(Level::kWarn, "node address not recorded",
                 {Field("address", address), Field("error", s.ToString())});
  }
}

void FleetQueue::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (coordinator_.joinable()) coordinator_.join();
  listener_.reset();
  local_->Shutdown();
  // The jobs claimed for this node's devices but not started go back to the fleet at once.
  absl::StatusOr<std::vector<store::ReapedJob>> released =
      lifecycle_->ReleaseNode(*fleet_, options_.node, options_.max_attempts);
  if (!released.ok()) {
    logging::Log(Level::kWarn, "claimed jobs not released; other nodes take them after the lease",
                 {Field("error", released.status().ToString())});
  }
}

void FleetQueue::Wake() {
  std::lock_guard lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void FleetQueue::CoordinatorLoop() {
  absl::Time next_beat = clock_->Now();
  std::unique_lock lock(mu_);
  while (!stopping_) {
    clock_->WaitUntil(cv_, lock, next_beat, [this] { return stopping_ || woken_; });
    if (stopping_) break;
    woken_ = false;
    std::vector<std::string> changed(changed_.begin(), changed_.end());
    changed_.clear();
    const bool beat = clock_->Now() >= next_beat;
    lock.unlock();
    if (beat) {
      Beat();
      ReapLostNodes();
      ShareLocalProgress();
      next_beat = clock_->Now() + options_.heartbeat;
    }
    FollowChangedJobs(std::move(changed));
    HonourCancelRequests();
    ClaimForIdleDevices();
    lock.lock();
  }
}

void FleetQueue::Beat() {
  absl::Status beat =
      lifecycle_->Heartbeat(*fleet_, options_.node, DevicesBlob(local_->Devices()), options_.lease);
  if (beat.ok() && options_.on_store_answered) options_.on_store_answered();
  if (!beat.ok()) {
    logging::Log(Level::kWarn, "heartbeat not written", {Field("error", beat.ToString())});
    // Connection lost or refused (not a deadlock or a serialization failure, which the next
    // beat gets past): the database is away.
    if (options_.on_store_unreachable && store::IsStoreWriteFailure(beat) &&
        beat.code() == absl::StatusCode::kUnavailable) {
      options_.on_store_unreachable(beat);
    }
  }
  std::vector<v1::NodeInfo> nodes = ReadNodes();
  if (!nodes.empty() && options_.on_nodes_read) options_.on_nodes_read(nodes);
  std::lock_guard lock(mu_);
  if (!nodes.empty()) nodes_ = std::move(nodes);
}

void FleetQueue::ReapLostNodes() {
  absl::StatusOr<std::vector<store::ReapedJob>> reaped =
      lifecycle_->ReapExpired(*fleet_, options_.max_attempts);
  if (!reaped.ok()) {
    logging::Log(Level::kWarn, "leases not reaped", {Field("error", reaped.status().ToString())});
  } else if (!reaped->empty() && options_.on_leases_taken_over) {
    options_.on_leases_taken_over(static_cast<int64_t>(reaped->size()));
  }
}

void FleetQueue::HonourCancelRequests() {
  absl::StatusOr<std::vector<std::string>> requested = fleet_->CancelRequests(options_.node);
  if (!requested.ok()) return;
  for (const std::string& id : *requested) {
    {
      std::lock_guard lock(mu_);
      if (!cancels_passed_on_.insert(id).second) continue;
    }
    absl::Status s = local_->Cancel(id, std::chrono::milliseconds(0));
    logging::LogJob(Level::kInfo, id, "cancel requested through another node",
                    {Field("result", s.ToString())});
  }
}

void FleetQueue::FollowChangedJobs(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (const std::string& id : ids) {
    // Watchers on this node of a job another node runs wake here; the store has its state and
    // the progress its node shared.
    absl::StatusOr<store::JobRecord> job = jobs_->Get(id);
    if (job.ok() && IsRemoteRun(*job)) {
      const std::optional<v1::Progress> progress = SharedProgress(id);
      if (progress) {
        events_->Publish(id, &*progress);
      } else {
        events_->Started(id);
      }
    } else {
      events_->Publish(id);
    }
    if (job.ok() && store::IsTerminal(job->state)) {
      events_->Finished(id);
      std::lock_guard lock(mu_);
      cancels_passed_on_.erase(id);
    }
  }
}

void FleetQueue::ShareLocalProgress() {
  absl::StatusOr<std::vector<std::string>> running = fleet_->RunningOn(options_.node);
  if (!running.ok()) return;
  std::map<std::string, std::string> shared;
  for (const std::string& id : *running) {
    const std::optional<v1::Progress> progress = events_->LatestProgress(id);
    if (!progress) continue;
    std::string bytes = progress->SerializeAsString();
    auto last = shared_progress_.find(id);
    if (last != shared_progress_.end() && last->second == bytes) {
      shared.insert(*last);
      continue;
    }
    absl::Status written = lifecycle_->ShareProgress(*fleet_, options_.node, id, bytes);
    if (!written.ok()) {
      logging::LogJob(Level::kWarn, id, "progress not shared",
                      {Field("error", written.ToString())});
      continue;
    }
    shared.emplace(id, std::move(bytes));
  }
  // Jobs that ended or left this node drop out here.
  shared_progress_ = std::move(shared);
}

bool FleetQueue::IsRemoteRun(const store::JobRecord& job) const {
  // This node's own runs publish their progress as it comes; the store's copy is older.
  return job.state == store::JobState::kRunning && job.node != options_.node;
}

std::optional<v1::Progress> FleetQueue::SharedProgress(const std::string& job_id) {
  absl::StatusOr<std::string> bytes = fleet_->SharedProgress(job_id);
  v1::Progress progress;
  if (!bytes.ok() || bytes->empty() || !progress.ParseFromString(*bytes)) return std::nullopt;
  return progress;
}

void FleetQueue::ClaimForIdleDevices() {
  const absl::Duration half_life = local_->FairShareHalfLife();
  for (const v1::DeviceInfo& d : local_->Devices()) {
    if (d.state() != v1::DEVICE_STATE_READY || d.queue_depth() > 0) continue;
    absl::StatusOr<std::optional<store::JobRecord>> claimed = lifecycle_->Claim(
        *fleet_, options_.node, store::ClaimableDevice{d.id(), TargetsServedBy(options_.node, d)},
        options_.lease, half_life);
    if (!claimed.ok()) {
      logging::Log(Level::kWarn, "claim failed",
                   {Field("device", d.id()), Field("error", claimed.status().ToString())});
      continue;
    }
    if (claimed->has_value()) local_->Enqueue(**claimed);
  }
}

std::vector<v1::NodeInfo> FleetQueue::ReadNodes() {
  absl::StatusOr<std::vector<store::NodeRecord>> records = fleet_->Nodes();
  if (!records.ok()) return {};
  const int64_t now = NowNs();
  std::vector<v1::NodeInfo> nodes;
  for (const store::NodeRecord& r : *records) {
    v1::NodeInfo n;
    n.set_name(r.name);
    n.set_address(r.address);
    n.set_version(r.version);
    *n.mutable_start_time() =
        google::protobuf::util::TimeUtil::NanosecondsToTimestamp(r.start_time_ns);
    *n.mutable_last_heartbeat() =
        google::protobuf::util::TimeUtil::NanosecondsToTimestamp(r.heartbeat_ns);
    n.set_alive(Alive(r.heartbeat_ns, now));
    n.set_claimed_jobs(r.claimed_jobs);
    const double age = std::max<int64_t>(0, now - r.heartbeat_ns) / 1e9;
    n.set_heartbeat_age_seconds(age);
    v1::DeviceList devices;
    if (devices.ParseFromString(r.devices)) {
      for (v1::DeviceInfo& d : *devices.mutable_devices()) {
        d.set_id(absl::StrCat(r.name, "/", d.id()));
        d.set_node(r.name);
        d.set_heartbeat_age_seconds(age);
        // A lost node runs nothing, whatever its devices last reported.
        if (!n.alive()) d.set_state(v1::DEVICE_STATE_FAILED);
        *n.add_devices() = std::move(d);
      }
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

bool FleetQueue::Alive(int64_t heartbeat_ns, int64_t now_ns) const {
  return now_ns - heartbeat_ns <= absl::ToInt64Nanoseconds(options_.lease);
}

std::vector<v1::NodeInfo> FleetQueue::Nodes() {
  std::vector<v1::NodeInfo> nodes = ReadNodes();
  if (!nodes.empty()) return nodes;
  std::lock_guard lock(mu_);
  return nodes_;
}

std::vector<v1::DeviceInfo> FleetQueue::Devices() {
  std::vector<v1::DeviceInfo> devices;
  for (const v1::NodeInfo& n : Nodes()) {
    if (n.name() == options_.node) {
      // This node's own devices as they are now, not as the last heartbeat left them.
      for (v1::DeviceInfo d : local_->Devices()) {
        d.set_id(absl::StrCat(n.name(), "/", d.id()));
        d.set_node(n.name());
        devices.push_back(std::move(d));
      }
      continue;
    }
    devices.insert(devices.end(), n.devices().begin(), n.devices().end());
  }
  return devices;
}

absl::StatusOr<v1::DeviceInfo> FleetQueue::ResolveDevice(const std::string& requested) {
  // Read now, not from the last heartbeat: a node that joined a moment ago is a valid target.
  const std::vector<v1::NodeInfo> nodes = Nodes();
  KBENCH_ASSIGN_OR_RETURN(ResolvedTarget resolved, ResolveTarget(requested, options_.node, nodes));
  return resolved.representative;
}

absl::StatusOr<v1::DeviceInfo> FleetQueue::ResolveOneDevice(const std::string& requested) {
  const std::vector<v1::NodeInfo> nodes = Nodes();
  KBENCH_ASSIGN_OR_RETURN(ResolvedTarget resolved, ResolveTarget(requested, options_.node, nodes));
  if (!absl::EndsWith(resolved.target, ":any")) return resolved.representative;
  const v1::DeviceInfo* chosen = nullptr;
  for (const v1::NodeInfo& n : nodes) {
    if (!n.alive()) continue;
    for (const v1::DeviceInfo& d : n.devices()) {
      const std::vector<std::string> served = TargetsServedBy(n.name(), d);
      // As on one host: a starting or restarting executor still takes jobs, a failed one not.
      if (d.state() == v1::DEVICE_STATE_FAILED ||
          std::find(served.begin(), served.end(), resolved.target) == served.end()) {
        continue;
      }
      if (chosen == nullptr || d.queue_depth() < chosen->queue_depth()) chosen = &d;
    }
  }
  if (chosen == nullptr) {
    return absl::UnavailableError(absl::StrCat("device: no working ", resolved.target,
                                               " device on a live node now; retry later"));
  }
  return *chosen;
}

absl::StatusOr<std::vector<v1::DeviceInfo>> FleetQueue::ResolveGang(
    const std::vector<std::string>& requested, int32_t gpus) {
  return ResolveGangTarget(requested, gpus, options_.node, Nodes());
}

absl::StatusOr<std::pair<store::JobRecord, bool>> FleetQueue::Submit(store::JobRecord record) {
  KBENCH_ASSIGN_OR_RETURN(auto created, local_->lifecycle().Create(std::move(record)));
  if (created.second) Enqueue(created.first);
  return created;
}

void FleetQueue::Enqueue(const store::JobRecord&) {
  // Stored unclaimed; the insert's NOTIFY wakes every node, and this one tries at once.
  Wake();
}

absl::Status FleetQueue::Cancel(const std::string& job_id, std::chrono::milliseconds wait) {
  KBENCH_ASSIGN_OR_RETURN(store::JobRecord record, jobs_->Get(job_id));
  if (store::IsTerminal(record.state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", store::JobStateName(record.state),
                     "; only queued or running jobs can be cancelled"));
  }
  if (record.node == options_.node) return local_->Cancel(job_id, wait);
  if (record.node.empty()) {
    KBENCH_ASSIGN_OR_RETURN(bool cancelled, lifecycle_->CancelUnclaimed(*fleet_, job_id));
    if (cancelled) return absl::OkStatus();
    // A node claimed it meanwhile: ask that node, as below.
  }
  KBENCH_RETURN_IF_ERROR(fleet_->RequestCancel(job_id));
  const auto until = std::chrono::steady_clock::now() + wait;
  uint64_t seen = events_->Version(job_id);
  while (std::chrono::steady_clock::now() < until) {
    absl::StatusOr<store::JobRecord> now = jobs_->Get(job_id);
    if (now.ok() && store::IsTerminal(now->state)) break;
    if (now.ok() && now->node == options_.node) return local_->Cancel(job_id, wait);
    seen = events_->WaitForChange(job_id, seen, until);
  }
  return absl::OkStatus();
}

std::map<std::string, scheduler::QueuePlaceEstimate> FleetQueue::QueuePlaces() {
  std::map<std::string, scheduler::QueuePlaceEstimate> places = local_->QueuePlaces();
  for (auto& [id, place] : places) place.device = absl::StrCat(options_.node, "/", place.device);
  absl::StatusOr<std::vector<store::UnclaimedJob>> unclaimed = fleet_->Unclaimed();
  if (!unclaimed.ok()) return places;
  std::vector<v1::NodeInfo> nodes;
  {
    std::lock_guard lock(mu_);
    nodes = nodes_;
  }
  // Unclaimed jobs: their place among the unclaimed jobs of the same target, oldest first (the
  // claim orders by fair share too; this is the line without it), and what they wait for when a
  // lost node holds their target.
  std::map<std::string, int32_t> ahead;
  for (const store::UnclaimedJob& job : *unclaimed) {
    scheduler::QueuePlaceEstimate& place = places[job.id];
    place.device = job.target;
    place.position = ++ahead[job.target];
    place.waiting_for = WaitingFor(job.target, nodes);
  }
  return places;
}

std::string FleetQueue::WaitingFor(const std::string& target,
                                   const std::vector<v1::NodeInfo>& nodes) {
  const size_t slash = target.find('/');
  if (slash == std::string::npos) return "";
  const std::string node = target.substr(0, slash);
  for (const v1::NodeInfo& n : nodes) {
    if (n.name() == node && !n.alive()) {
      return absl::StrCat("node ", node, " has not heartbeated for ",
                          static_cast<int64_t>(n.heartbeat_age_seconds()),
                          " s: the job waits for it to come back");
    }
  }
  return "";
}

scheduler::UsageSnapshot FleetQueue::Usage(const std::string& owner) {
  scheduler::UsageSnapshot snapshot;
  snapshot.now = clock_->Now();
  const absl::Time day_start = scheduler::NextUtcMidnight(snapshot.now) - absl::Hours(24);
  absl::StatusOr<std::vector<store::FleetOwnerRow>> rows = fleet_->OwnerRows(
      absl::ToUnixNanos(snapshot.now), FairShareHalfLife(), absl::ToUnixNanos(day_start));
  if (!rows.ok()) {
    // Quotas then see only this node's jobs: better than refusing every submit.
    logging::Log(Level::kWarn, "fleet usage not read; using this node's",
                 {Field("error", rows.status().ToString())});
    return local_->Usage(owner);
  }
  bool listed = owner.empty();
  for (const store::FleetOwnerRow& r : *rows) {
    scheduler::OwnerStanding standing;
    standing.owner = r.owner;
    standing.usage = {r.decayed_gpu_seconds, r.today_gpu_seconds, r.total_gpu_seconds};
    standing.queued = r.queued;
    standing.running = r.running;
    snapshot.unfinished_jobs += r.queued + r.running;
    snapshot.owners.push_back(standing);
    listed = listed || r.owner == owner;
  }
  if (!listed) {
    scheduler::OwnerStanding none;
    none.owner = owner;
    snapshot.owners.push_back(none);
  }
  return snapshot;
}

}  // namespace kbench::fleet
