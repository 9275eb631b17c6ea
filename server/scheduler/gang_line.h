// Gang scheduling of multi-device jobs (issue 30): a job that spans several devices holds all of
// them at once or none. Its lead device's worker takes it off the lead's queue in fair-share
// order, like any job, and brings it here to wait for the rest of its gang.
//
// The rules, and why they cannot deadlock or starve:
// - All or nothing: a gang is granted only when every one of its devices is idle (running nothing,
//   held by no other gang), and then holds all of them in one step under the scheduler's lock. No
//   job ever holds part of its devices while waiting for the rest, so no two jobs can wait on each
//   other (a waits-for cycle needs a partial hold).
// - A device that a waiting gang needs starts no new job of its own queue: it drains. Its running
//   job ends by its deadline at the latest, so the gang waits at most one job per device, however
//   many one-device jobs keep arriving (no starvation behind a stream of single-GPU jobs).
// - Gangs that share a device are granted in the order they came (first come, first granted), so
//   a later gang never overtakes an earlier one for the same device; gangs that share none
//   proceed independently.
// Not thread-safe: the scheduler's mutex guards it.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::scheduler {

class GangLine {
 public:
  // Whether a device runs nothing now (its own jobs; the line adds its own holds).
  using DeviceIdleFn = std::function<bool(const std::string& device)>;

  // A job comes to wait for its devices (its lead among them). Joining twice is a no-op.
  void Join(const std::string& job_id, const std::vector<std::string>& devices);
  // Grants, in order of arrival, every waiting gang whose devices are all idle and that no
  // earlier waiting gang overlaps; returns the job ids granted now.
  std::vector<std::string> Grant(const DeviceIdleFn& idle);
  bool Granted(const std::string& job_id) const;
  // The job's run ended, or it stopped waiting (cancelled, shutdown): its devices are free.
  void Leave(const std::string& job_id);

  // Whether the device must not start a job of its own queue: a gang holds it, or waits for it.
  bool Blocks(const std::string& device) const;
  // The job holding the device, if a gang does.
  std::optional<std::string> HolderOf(const std::string& device) const;
  bool empty() const { return gangs_.empty(); }

 private:
  struct Gang {
    std::string job_id;
    std::vector<std::string> devices;
    bool granted = false;
  };

  // In order of arrival.
  std::vector<Gang> gangs_;
  // Device -> the granted job holding it.
  std::map<std::string, std::string> held_;
};

}  // namespace kbench::scheduler
