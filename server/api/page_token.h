// Opaque page tokens for ListJobs: the seq of the last job returned, versioned and base64'd.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace kbench::api {

std::string EncodePageToken(int64_t last_seq);
// INVALID_ARGUMENT "page_token: ..." for anything this server did not produce.
absl::StatusOr<int64_t> DecodePageToken(const std::string& token);

}  // namespace kbench::api
