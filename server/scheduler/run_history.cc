// Recent run durations per similar-job key.
#include "server/scheduler/run_history.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kbench::scheduler {

std::string SimilarJobKey(const v1::JobSpec& spec, const std::string& device) {
  return absl::StrCat(spec.kernel(), "|", absl::StrJoin(spec.variants(), ","), "|", device);
}

void RunHistory::Add(const std::string& key, double seconds) {
  if (!(seconds >= 0)) return;
  std::deque<double>& runs = runs_[key];
  runs.push_back(seconds);
  while (runs.size() > kRunsKept) runs.pop_front();
}

std::optional<double> RunHistory::Expected(const std::string& key) const {
  auto it = runs_.find(key);
  if (it == runs_.end() || it->second.empty()) return std::nullopt;
  return std::accumulate(it->second.begin(), it->second.end(), 0.0) /
         static_cast<double>(it->second.size());
}

}  // namespace kbench::scheduler
