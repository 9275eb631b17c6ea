// Registering for a GPU's Xid events and draining them.
#include "server/common/nvml_events.h"

#include "absl/strings/str_cat.h"

namespace kbench::nvml {
namespace {

std::string Why(const Api* api, const char* call, Return r) {
  const char* text = api->error_string != nullptr ? api->error_string(r) : nullptr;
  return absl::StrCat(call, " failed: ", text != nullptr ? text : absl::StrCat("error ", r));
}

}  // namespace

XidWatch::XidWatch(const Api* api, Device device) : api_(api), device_(device) {
  if (api_ == nullptr || device_ == nullptr) {
    why_not_ = "no NVML device";
    return;
  }
  if (api_->event_set_create == nullptr || api_->register_events == nullptr ||
      api_->event_set_wait == nullptr || api_->event_set_free == nullptr) {
    why_not_ = "this driver's NVML has no event sets";
    return;
  }
  EventSet set = nullptr;
  if (const Return r = api_->event_set_create(&set); r != kSuccess) {
    why_not_ = Why(api_, "nvmlEventSetCreate", r);
    return;
  }
  if (const Return r = api_->register_events(device_, kEventTypeXidCriticalError, set);
      r != kSuccess) {
    why_not_ = Why(api_, "nvmlDeviceRegisterEvents", r);
    api_->event_set_free(set);
    return;
  }
  set_ = set;
}

XidWatch::~XidWatch() {
  if (set_ != nullptr) api_->event_set_free(set_);
}

XidWatch::Seen XidWatch::Drain() {
  std::lock_guard<std::mutex> lock(mu_);
  if (set_ == nullptr) return seen_;
  for (int i = 0; i < kMaxPerDrain; ++i) {
    EventData data{};
    // A timeout of 0 returns at once: NVML_ERROR_TIMEOUT when nothing is waiting.
    if (api_->event_set_wait(set_, &data, 0) != kSuccess) break;
    if ((data.event_type & kEventTypeXidCriticalError) == 0) continue;
    ++seen_.events;
    seen_.last_xid = data.event_data;
  }
  return seen_;
}

}  // namespace kbench::nvml
