// Xid errors on one GPU as they arrive (issue 29, the clean stamp): an NVML event set registered
// for the device's Xid events when the watch is made, drained without waiting at each reading.
// NVML delivers an event to every set registered before it happened, whichever process caused
// it, so a neighbour's fault on the device during a window is seen by the window.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "server/common/nvml_api.h"

namespace kbench::nvml {

// Thread-safe.
class XidWatch {
 public:
  // Every Xid seen since the watch was made (cumulative: a window counts its change).
  struct Seen {
    uint64_t events = 0;
    // The number of the last Xid (e.g. 31: an MMU fault; 79: fallen off the bus); 0 if none.
    uint64_t last_xid = 0;
  };

  // Registers for `device`'s Xid events; `api` and `device` outlive the watch. When NVML
  // cannot (an old driver without the entry points, a device without events), watching() is
  // false and why_not() says why.
  XidWatch(const Api* api, Device device);
  ~XidWatch();
  XidWatch(const XidWatch&) = delete;
  XidWatch& operator=(const XidWatch&) = delete;

  bool watching() const { return set_ != nullptr; }
  const std::string& why_not() const { return why_not_; }

  // Takes every event waiting (at most kMaxPerDrain a call, never blocking) and returns the
  // totals so far.
  Seen Drain();

  static constexpr int kMaxPerDrain = 256;

 private:
  const Api* api_;
  Device device_;
  EventSet set_ = nullptr;
  std::string why_not_;
  std::mutex mu_;
  Seen seen_;
};

}  // namespace kbench::nvml
