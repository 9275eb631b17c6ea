// Past run durations of similar jobs (same kernel, variants and device), to estimate how long a
// queued job will take: the mean of the last few successful runs. Not thread-safe:
// RunAccounts guards it (run_accounts.h).
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::scheduler {

// "kernel|variant,variant|device": the key under which runs predict each other.
std::string SimilarJobKey(const v1::JobSpec& spec, const std::string& device);

class RunHistory {
 public:
  // Runs remembered per key: recent enough to follow a changed kernel, enough to smooth noise.
  static constexpr size_t kRunsKept = 8;

  void Add(const std::string& key, double seconds);
  // The mean of the kept runs, or nothing when no run of this key was seen.
  std::optional<double> Expected(const std::string& key) const;

 private:
  std::map<std::string, std::deque<double>> runs_;
};

}  // namespace kbench::scheduler
