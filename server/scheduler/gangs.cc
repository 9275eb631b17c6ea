// Multi-GPU jobs on one host (issue 30): which devices a job's gang is (at submit), and what the
// workers ask of the scheduler while a gang waits and runs (gang_line.h has the rules).
#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "server/scheduler/scheduler.h"

namespace kbench::scheduler {
namespace {

// The devices' ids, for messages: "cuda:0, cuda:1".
std::string IdsOf(const std::vector<const DeviceState*>& devices) {
  std::vector<std::string> ids;
  for (const DeviceState* d : devices) ids.push_back(d->id);
  return absl::StrJoin(ids, ", ");
}

}  // namespace

absl::StatusOr<std::vector<v1::DeviceInfo>> Scheduler::ResolveGang(
    const std::vector<std::string>& requested, int32_t gpus) {
  if (!requested.empty() && gpus != 0) {
    return absl::InvalidArgumentError(
        "devices: name the devices (--devices) or ask for a count (--gpus), not both");
  }
  if (gpus < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("gpus: ", gpus, " is not a count; give N >= 1, or -1 for all (--gpus all)"));
  }
  std::lock_guard lock(mu_);
  std::vector<const Device*> chosen;
  if (!requested.empty()) {
    KBENCH_ASSIGN_OR_RETURN(chosen, NamedGangDevices(requested));
  } else {
    KBENCH_ASSIGN_OR_RETURN(chosen, CountedGangDevices(gpus));
  }
  std::vector<v1::DeviceInfo> out;
  for (const Device* d : chosen) out.push_back(d->info);
  return out;
}

absl::StatusOr<std::vector<const DeviceState*>> Scheduler::NamedGangDevices(
    const std::vector<std::string>& requested) {
  std::vector<const Device*> chosen;
  std::set<std::string> seen;
  for (const std::string& name : requested) {
    absl::StatusOr<DeviceId> parsed = ParseDeviceId(name);
    if (!parsed.ok())
      return absl::InvalidArgumentError(absl::StrCat("devices: ", parsed.status().message()));
    if (parsed->kind != DeviceId::Kind::kCuda) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: '", name, "' is not one CUDA device; a multi-GPU job names cuda:N devices"));
    }
    const std::string id = parsed->ToString();
    if (!seen.insert(id).second) {
      return absl::InvalidArgumentError(absl::StrCat("devices: ", id, " is named twice"));
    }
    auto it = devices_.find(id);
    if (it == devices_.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: unknown device '", name, "' (available: ", absl::StrJoin(order_, ", "), ")"));
    }
    if (!Usable(it->second->info)) {
      return absl::UnavailableError(absl::StrCat(
          "devices: ", id, " is unavailable now: its executor fails to start; retry later"));
    }
    chosen.push_back(it->second.get());
  }
  // One model: a collective's ranks are compared with one interconnect and one peak.
  for (const Device* d : chosen) {
    if (d->info.name() != chosen.front()->info.name()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "devices: ", chosen.front()->id, " is a ", chosen.front()->info.name(), " but ", d->id,
          " is a ", d->info.name(), "; a multi-GPU job's devices must be of one model"));
    }
  }
  return chosen;
}

absl::StatusOr<std::vector<const DeviceState*>> Scheduler::CountedGangDevices(int32_t gpus) {
  // The usable CUDA devices by model, in device order.
  std::map<std::string, std::vector<const Device*>> by_model;
  std::vector<const Device*> all;
  for (const std::string& id : order_) {
    const Device* d = devices_.at(id).get();
    if (d->parsed.kind != DeviceId::Kind::kCuda || !Usable(d->info)) continue;
    by_model[d->info.name()].push_back(d);
    all.push_back(d);
  }
  if (by_model.empty()) {
    return absl::FailedPreconditionError(
        "gpus: this host has no ready CUDA device; a multi-GPU job needs them");
  }
  if (gpus == -1) {
    if (by_model.size() > 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          "gpus: all was asked but this host's ready CUDA devices are of ", by_model.size(),
          " models; name the devices (--devices) or ask for a count (--gpus N)"));
    }
    return by_model.begin()->second;
  }
  // The model with enough devices whose N least queued carry the least load; ties: device order.
  const auto load = [](const Device* d) { return d->queue.size() + (d->running ? 1 : 0); };
  std::optional<std::vector<const Device*>> best;
  size_t best_load = 0;
  size_t most = 0;
  for (auto& [model, devices] : by_model) {
    most = std::max(most, devices.size());
    if (devices.size() < static_cast<size_t>(gpus)) continue;
    std::vector<const Device*> least = devices;
    std::stable_sort(least.begin(), least.end(),
                     [&](const Device* a, const Device* b) { return load(a) < load(b); });
    least.resize(gpus);
    size_t total = 0;
    for (const Device* d : least) total += load(d);
    if (!best || total < best_load) {
      // Rank order follows device order, whatever the load.
      std::sort(least.begin(), least.end(), [&](const Device* a, const Device* b) {
        return a->parsed.ordinal < b->parsed.ordinal;
      });
      best = std::move(least);
      best_load = total;
    }
  }
  if (!best) {
    return absl::FailedPreconditionError(absl::StrCat("gpus: ", gpus, " asked but this host has ",
                                                      most, " ready CUDA devices of one model (",
                                                      IdsOf(all), ")"));
  }
  return *best;
}

bool Scheduler::RunsNothing(const std::string& device) {
  auto it = devices_.find(device);
  return it == devices_.end() || !it->second->running.has_value();
}

void Scheduler::HoldGangMembers(const QueuedJob& job, bool hold) {
  for (size_t i = 1; i < job.devices.size(); ++i) {
    auto it = devices_.find(job.devices[i]);
    if (it == devices_.end()) continue;
    Device& d = *it->second;
    if (hold) {
      // Shown busy with the job (queue depth, usage: an owner's gang counts on every device).
      d.running = RunningJob{
          job.id, std::nullopt, job.owner, clock_->Now(), ExpectedSeconds(job, nullptr), true};
    } else if (d.running && d.running->id == job.id) {
      d.running.reset();
    }
  }
}

}  // namespace kbench::scheduler
