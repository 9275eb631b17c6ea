// Between-job noise from a result key's history.
#include "client/verdict/history_noise.h"

#include <algorithm>

#include "common/gang_model.h"
#include "google/protobuf/util/message_differencer.h"

namespace kbench::client {

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
  const v1::HistoryEntry* base = nullptr;
  for (const v1::HistoryEntry& e : history.entries()) {
    if (e.job_id() == baseline_id && e.key().variant() == variant) base = &e;
  }
  if (base == nullptr) return {};
  std::vector<double> medians;
  for (const v1::HistoryEntry& e : history.entries()) {
    if (!Counted(e) || e.custom_stopping() != base->custom_stopping() ||
        std::find(exclude.begin(), exclude.end(), e.job_id()) != exclude.end() ||
        !google::protobuf::util::MessageDifferencer::Equals(e.key(), base->key())) {
      continue;
    }
    medians.push_back(e.median_seconds());
  }
  return medians;
}

analysis::BetweenJobNoise NoiseOfKey(const v1::ListHistoryResponse& history,
                                     const std::string& baseline_id, const std::string& variant,
                                     const std::vector<std::string>& exclude) {
  return analysis::EstimateBetweenJobNoise(SameKeyMedians(history, baseline_id, variant, exclude));
}

absl::StatusOr<analysis::BetweenJobNoise> FetchHistoryNoise(
    Connection& connection, const v1::Job& baseline, const std::string& variant,
    const std::vector<std::string>& exclude) {
  v1::ListHistoryRequest request;
  request.set_kernel(baseline.spec().kernel());
  request.set_variant(variant);
  *request.mutable_shape() = baseline.spec().shape();
  request.set_dtype(baseline.spec().dtype());
  // The model, not the id: the same card model on other hosts of a fleet shares the key (a
  // multi-GPU job's: the model and its gang's size).
  request.set_device(HistoryDeviceModel(baseline.result().environment().device_name(),
                                        baseline.spec().devices_size()));
  request.set_page_size(kHistoryWindow);
  absl::StatusOr<v1::ListHistoryResponse> history = connection.ListHistory(request);
  if (!history.ok()) return history.status();
  return NoiseOfKey(*history, baseline.id(), variant, exclude);
}

}  // namespace kbench::client
