// Caps on concurrently open server streams (WatchJob, GetArtifact), in total and per caller
// identity, so that no one caller, nor all of them together, can hold unbounded server memory.
#pragma once

#include <grpcpp/server_context.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"

namespace kbench::api {

// Who a stream is counted against. Until authentication lands this is the peer's host; with
// tokens it becomes the authenticated owner.
using IdentityFn = std::function<std::string(const grpc::CallbackServerContext&)>;

// The peer's address without its port ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1"), so that one
// host opening many connections is still one identity.
std::string PeerHost(const grpc::CallbackServerContext& context);

class StreamLimiter;

// One open stream's place under the caps; released on destruction. Move-only.
class StreamSlot {
 public:
  StreamSlot() = default;
  StreamSlot(StreamSlot&& other) noexcept;
  StreamSlot& operator=(StreamSlot&& other) noexcept;
  StreamSlot(const StreamSlot&) = delete;
  StreamSlot& operator=(const StreamSlot&) = delete;
  ~StreamSlot();

 private:
  friend class StreamLimiter;
  StreamSlot(StreamLimiter* limiter, std::string identity)
      : limiter_(limiter), identity_(std::move(identity)) {}
  void Release();

  StreamLimiter* limiter_ = nullptr;
  std::string identity_;
};

// Thread-safe. Must outlive every slot it hands out.
class StreamLimiter {
 public:
  StreamLimiter(int64_t max_total, int64_t max_per_identity)
      : max_total_(max_total), max_per_identity_(max_per_identity) {}

  // A slot, or RESOURCE_EXHAUSTED naming the limit that is reached.
  absl::StatusOr<StreamSlot> Acquire(const std::string& identity);

  int64_t open() const;
  int64_t open_for(const std::string& identity) const;

 private:
  friend class StreamSlot;
  void Release(const std::string& identity);

  const int64_t max_total_;
  const int64_t max_per_identity_;
  mutable std::mutex mu_;
  int64_t open_ ABSL_GUARDED_BY(mu_) = 0;
  // Only identities with open streams, so the map is bounded by max_total_.
  std::map<std::string, int64_t> per_identity_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::api
