// Random ids (see new_id.h).
#include "server/api/new_id.h"

#include <random>

#include "absl/strings/str_format.h"

namespace kbench::api {

std::string NewId(absl::string_view prefix) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          (uint64_t{std::random_device{}()} << 32));
  return absl::StrFormat("%s-%016x", prefix, rng());
}

}  // namespace kbench::api
