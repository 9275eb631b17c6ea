// Between-job noise from a result key's history.
#include "client/verdict/history_noise.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "google/protobuf/util/message_differencer.h"

namespace kbench::client {

HistoryNoise BetweenJobNoise(std::span<const double> medians) {
  HistoryNoise noise;
  noise.results = static_cast<int>(medians.size());
  if (noise.results < kMinHistoryResults) return noise;
  std::vector<double> changes;
  changes.reserve(medians.size() * (medians.size() - 1) / 2);
  for (size_t i = 0; i < medians.size(); ++i) {
    for (size_t j = i + 1; j < medians.size(); ++j) {
      const double low = std::min(medians[i], medians[j]);
      if (low > 0) changes.push_back(100 * std::abs(medians[i] - medians[j]) / low);
    }
  }
  if (changes.empty()) return noise;
  // The nearest-rank 95th percentile, as aa_calibration.sh reports it.
  const size_t rank = std::min(changes.size() - 1, static_cast<size_t>(0.95 * changes.size()));
  std::nth_element(changes.begin(), changes.begin() + rank, changes.end());
  noise.p95_change_percent = changes[rank];
  return noise;
}

bool Counted(const v1::HistoryEntry& entry) {
  return entry.correct() && !entry.impossible() && !entry.contended();
}

std::vector<KeyMedians> CountedMediansByKey(const v1::ListHistoryResponse& history,
                                            const std::vector<std::string>& exclude) {
  std::vector<KeyMedians> groups;
  for (const v1::HistoryEntry& e : history.entries()) {
    if (!Counted(e) || std::find(exclude.begin(), exclude.end(), e.job_id()) != exclude.end()) {
      continue;
    }
    auto same_key = [&e](const KeyMedians& group) {
      return google::protobuf::util::MessageDifferencer::Equals(*group.key, e.key());
    };
    auto group = std::find_if(groups.begin(), groups.end(), same_key);
    if (group == groups.end()) group = groups.insert(groups.end(), KeyMedians{&e.key(), {}});
    group->medians.push_back(e.median_seconds());
  }
  return groups;
}

std::vector<double> SameKeyMedians(const v1::ListHistoryResponse& history,
                                   const std::string& baseline_id, const std::string& variant,
                                   const std::vector<std::string>& exclude) {
  const v1::ResultKey* key = nullptr;
  for (const v1::HistoryEntry& e : history.entries()) {
    if (e.job_id() == baseline_id && e.key().variant() == variant) key = &e.key();
  }
  if (key == nullptr) return {};
  for (KeyMedians& group : CountedMediansByKey(history, exclude)) {
    if (google::protobuf::util::MessageDifferencer::Equals(*group.key, *key)) {
      return std::move(group.medians);
    }
  }
  return {};
}

absl::StatusOr<HistoryNoise> FetchHistoryNoise(Connection& connection, const v1::Job& baseline,
                                               const std::string& variant,
                                               const std::vector<std::string>& exclude) {
  v1::ListHistoryRequest request;
  request.set_kernel(baseline.spec().kernel());
  request.set_variant(variant);
  *request.mutable_shape() = baseline.spec().shape();
  request.set_dtype(baseline.spec().dtype());
  // The model, not the id: the same card model on other hosts of a fleet shares the key.
  request.set_device(baseline.result().environment().device_name());
  request.set_page_size(kHistoryWindow);
  absl::StatusOr<v1::ListHistoryResponse> history = connection.ListHistory(request);
  if (!history.ok()) return history.status();
  const std::vector<double> medians = SameKeyMedians(*history, baseline.id(), variant, exclude);
  return BetweenJobNoise(medians);
}

}  // namespace kbench::client
