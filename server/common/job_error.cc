// A job's error message, bounded (job_error.h).
#include "server/common/job_error.h"

#include "absl/strings/str_cat.h"

namespace kbench {
namespace {

// The longest prefix of `text` no longer than `max_bytes` that does not end inside a UTF-8
// character (a cut multi-byte character would make the string invalid for proto3).
absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back up over continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

std::string BoundedJobError(absl::string_view message, absl::string_view kept_as) {
  if (message.size() <= kMaxJobErrorBytes) return std::string(message);
  const std::string tail =
      absl::StrCat("\n... (cut here: the whole message is ", message.size(), " bytes",
                   kept_as.empty() ? std::string(")") : absl::StrCat("; it is ", kept_as, ")"));
  return absl::StrCat(Utf8Prefix(message, kMaxJobErrorBytes - tail.size()), tail);
}

}  // namespace kbench
