// A node of a fleet: its own Scheduler runs its devices, and this puts that scheduler in front
// of the queue every node shares in PostgreSQL. Submits on any node are stored unclaimed, for a
// target ("gpu-b/cuda:0", "cuda:any", "h100:any", "cpu:any"); a coordinator thread claims the
// next job for each idle local device in fleet-wide fair-share order, heartbeats (renewing the
// leases of the jobs it holds), re-queues the jobs of nodes whose lease passed, and carries
// cancels, job changes and running jobs' progress between nodes (LISTEN/NOTIFY). A device runs one
// job at a time: a job is claimed only for a device with nothing queued or running. Every job
// transition goes through the local scheduler's JobLifecycle, and time through its clock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/common/fair_share_policy.h"
#include "server/fleet/target.h"
#include "server/scheduler/job_events.h"
#include "server/scheduler/job_queue.h"
#include "server/scheduler/scheduler.h"
#include "server/store/fleet_store.h"
#include "server/store/job_store.h"
#include "server/store/postgres_listener.h"

namespace kbench::fleet {

struct FleetOptions {
  std::string node;     // --node
  std::string address;  // --listen, until ListeningOn gives the bound address
  std::string version;
  std::string store_url;  // for the LISTEN connection
  absl::Duration heartbeat = absl::Seconds(1);
  // A node that has not heartbeated for this long is lost: its jobs are re-queued (--node-lease).
  absl::Duration lease = absl::Seconds(15);
  // Runs of a job a lost node may cost before it ends FAILED (as JobLifecycle's recovery).
  int32_t max_attempts = FairSharePolicy::kMaxAttempts;
  // Told when a heartbeat finds the database unreachable (the job store then refuses submits
  // until it is back, and health says so before any submit tries).
  std::function<void(const absl::Status&)> on_store_unreachable;
  // Told when a heartbeat was written: the database answers, so what an outage left held in
  // memory can be written now rather than at the next retry tick.
  std::function<void()> on_store_answered;
  // Told each heartbeat the fleet's nodes as read back (kbench_fleet_node_alive, heartbeat age)
  // and how many jobs of nodes whose lease expired this node re-queued or ended.
  std::function<void(const std::vector<v1::NodeInfo>&)> on_nodes_read;
  std::function<void(int64_t jobs)> on_leases_taken_over;
};

class FleetQueue final : public scheduler::JobQueue {
 public:
  // Borrows everything; all must outlive it. `local` must be started before Start.
  FleetQueue(FleetOptions options, scheduler::Scheduler* local, store::JobStore* jobs,
             store::FleetStore* fleet, scheduler::JobEvents* events);
  ~FleetQueue() override;

  // Registers the node, releases the jobs it held in an earlier life, listens for the fleet's
  // job changes and starts the coordinator.
  absl::Status Start();
  // The gRPC server is bound to `address` (HOST:PORT, its port picked when --listen gave 0):
  // `kbctl nodes` shows it.
  void ListeningOn(const std::string& address);
  // Stops claiming, stops the local scheduler (its running job goes back to the shared queue)
  // and releases the jobs this node had claimed but not started.
  void Shutdown();

  std::vector<v1::DeviceInfo> Devices() override;
  absl::StatusOr<v1::DeviceInfo> ResolveDevice(const std::string& requested) override;
  // A "KIND:any" target becomes the least-loaded (queued + running) working device serving it
  // on a live node.
  absl::StatusOr<v1::DeviceInfo> ResolveOneDevice(const std::string& requested) override;
  // One live node's devices (gang_target.h).
  absl::StatusOr<std::vector<v1::DeviceInfo>> ResolveGang(const std::vector<std::string>& requested,
                                                          int32_t gpus) override;
  // Stores the job unclaimed (for its target) through the local lifecycle; any node claims it.
  absl::StatusOr<std::pair<store::JobRecord, bool>> Submit(store::JobRecord record) override;
  // Through the local lifecycle: the store and the artifact rows are the fleet's.
  absl::StatusOr<int32_t> DeleteFinished(const std::string& job_id) override {
    return local_->DeleteFinished(job_id);
  }
  absl::StatusOr<store::ArtifactStore::DeletedSweep> DeleteSweep(
      const std::string& sweep_id) override {
    return local_->DeleteSweep(sweep_id);
  }
  void Enqueue(const store::JobRecord& record) override;
  absl::Status Cancel(const std::string& job_id, std::chrono::milliseconds wait) override;
  std::map<std::string, scheduler::QueuePlaceEstimate> QueuePlaces() override;
  scheduler::UsageSnapshot Usage(const std::string& owner = "") override;
  absl::Duration FairShareHalfLife() const override { return local_->FairShareHalfLife(); }
  std::vector<v1::NodeInfo> Nodes() override;

 private:
  // The coordinator's loop and its steps.
  void CoordinatorLoop();
  void Beat();
  void ReapLostNodes();
  void HonourCancelRequests();
  void FollowChangedJobs(std::vector<std::string> ids);
  // Writes the latest progress of each job this node runs, where it changed, for other nodes.
  void ShareLocalProgress();
  // The job runs on another node.
  bool IsRemoteRun(const store::JobRecord& job) const;
  // The progress the job's node shared for its current run, once it has.
  std::optional<v1::Progress> SharedProgress(const std::string& job_id);
  void ClaimForIdleDevices();
  void Wake();

  // The fleet as the last heartbeat read it: every node with its devices.
  std::vector<v1::NodeInfo> ReadNodes();
  bool Alive(int64_t heartbeat_ns, int64_t now_ns) const;
  // Now, from the local scheduler's clock (one clock for the whole node).
  int64_t NowNs() const;
  // Why a job for `target` waits, when its node is lost ("" otherwise).
  static std::string WaitingFor(const std::string& target, const std::vector<v1::NodeInfo>& nodes);

  const FleetOptions options_;
  scheduler::Scheduler* const local_;
  // The local scheduler's: every transition of a fleet's job goes through the same owner.
  scheduler::JobLifecycle* const lifecycle_;
  scheduler::Clock* const clock_;
  store::JobStore* const jobs_;
  store::FleetStore* const fleet_;
  scheduler::JobEvents* const events_;
  std::unique_ptr<store::PostgresListener> listener_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool woken_ = false;
  std::deque<std::string> changed_;          // job ids announced by the listener, to follow
  std::set<std::string> cancels_passed_on_;  // cancel requests handed to the local scheduler
  std::vector<v1::NodeInfo> nodes_;          // refreshed by every heartbeat
  // The coordinator's own: what ShareLocalProgress last wrote for each job running here.
  std::map<std::string, std::string> shared_progress_;
  std::thread coordinator_;
};

}  // namespace kbench::fleet
