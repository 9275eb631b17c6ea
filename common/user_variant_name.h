// The one rule for a user-chosen variant name ("@" then 1 to 63 of [A-Za-z0-9_.-]): a job's
// user kernels, registered variants, and what readers of old data (reports, plots, CSV, file
// names) test a stored name against. Names become gnuplot labels, HTML text, CSV cells and
// parts of file names, so the rule admits no quote, backquote, '$', '/', space or control
// character (issue 24, item 2; docs/security/names.md). Header-only, like placement_limits.h.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kbench {

// Characters after the '@'.
inline constexpr size_t kMaxUserVariantNameChars = 63;
inline constexpr char kUserVariantNameRule[] = "'@' then 1 to 63 letters, digits, '_', '-' or '.'";

inline bool IsUserVariantNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// True for a name that follows the rule.
inline bool IsWellFormedUserVariantName(absl::string_view name) {
  return name.size() >= 2 && name.size() <= kMaxUserVariantNameChars + 1 && name[0] == '@' &&
         std::all_of(name.begin() + 1, name.end(), IsUserVariantNameChar);
}

// A printable prefix of a refused name for an error message: its first 64 bytes, each byte
// outside [A-Za-z0-9_.-@] shown as '?', so the message cannot carry the name's payload further.
inline std::string ShownUserVariantName(absl::string_view name) {
  std::string shown(name.substr(0, kMaxUserVariantNameChars + 1));
  for (char& c : shown) {
    if (!IsUserVariantNameChar(c) && c != '@') c = '?';
  }
  return name.size() > shown.size() ? absl::StrCat(shown, "...") : shown;
}

// INVALID_ARGUMENT naming `field` and the rule unless `name` follows it.
inline absl::Status CheckUserVariantName(absl::string_view field, absl::string_view name) {
  if (IsWellFormedUserVariantName(name)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(field, ": '", ShownUserVariantName(name),
                                                 "' is not a user variant name: it must be ",
                                                 kUserVariantNameRule));
}

}  // namespace kbench
