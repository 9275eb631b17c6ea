// ListJobs page tokens.
#include "server/api/page_token.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kbench::api {
namespace {
constexpr char kPrefix[] = "kbench-page-v1:";
}

std::string EncodePageToken(int64_t last_seq) {
  return absl::WebSafeBase64Escape(absl::StrCat(kPrefix, last_seq));
}

absl::StatusOr<int64_t> DecodePageToken(const std::string& token) {
  std::string raw;
  int64_t seq = 0;
  if (!absl::WebSafeBase64Unescape(token, &raw) || !absl::StartsWith(raw, kPrefix) ||
      !absl::SimpleAtoi(raw.substr(sizeof(kPrefix) - 1), &seq) || seq <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_token: '", token, "' is not a token this server issued"));
  }
  return seq;
}

}  // namespace kbench::api
