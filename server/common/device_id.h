// The one parser of device ids ("cpu", "cuda:N", "cuda:any"), shared by the api, the scheduler,
// the metrics' label guard and the executor, so that they cannot disagree on what a name means.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kbench {

struct DeviceId {
  enum class Kind { kCpu, kCuda, kAnyCuda };
  Kind kind = Kind::kCpu;
  // The CUDA ordinal for kCuda; -1 otherwise.
  int ordinal = -1;

  static DeviceId Cpu() { return {Kind::kCpu, -1}; }
  static DeviceId Cuda(int ordinal) { return {Kind::kCuda, ordinal}; }
  static DeviceId AnyCuda() { return {Kind::kAnyCuda, -1}; }

  // The canonical text: "cpu", "cuda:3", "cuda:any".
  std::string ToString() const;
  friend bool operator==(const DeviceId& a, const DeviceId& b) {
    return a.kind == b.kind && a.ordinal == b.ordinal;
  }
};

// Largest CUDA ordinal accepted: far above any host's GPU count, small enough that a typo such as
// "cuda:99999999999" is refused instead of overflowing.
inline constexpr int kMaxCudaOrdinal = 1023;

// Parses the canonical text (exact, lower case, no spaces). INVALID_ARGUMENT quoting (a prefix
// of) the text and listing the accepted forms otherwise.
absl::StatusOr<DeviceId> ParseDeviceId(absl::string_view text);

// A fleet's node-qualified id as its own node knows it: "gpu-a/cuda:1" -> "cuda:1" (a plain id
// is returned as it is).
inline std::string LocalDeviceId(const std::string& id) {
  const size_t slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

}  // namespace kbench
