// Fuzz target: ListJobs page tokens (server/api/page_token.*). A token is client input: any
// string decodes to a seq or fails with INVALID_ARGUMENT naming page_token; a seq it accepts
// encodes back to a token that decodes to the same seq.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "server/api/page_token.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string token(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<int64_t> seq = kbench::api::DecodePageToken(token);
  if (!seq.ok()) {
    if (seq.status().code() != absl::StatusCode::kInvalidArgument ||
        !absl::StartsWith(seq.status().message(), "page_token")) {
      std::abort();
    }
    return 0;
  }
  const absl::StatusOr<int64_t> again =
      kbench::api::DecodePageToken(kbench::api::EncodePageToken(*seq));
  if (!again.ok() || *again != *seq) std::abort();
  return 0;
}
