// A job's error message, bounded (issue 24, item 3). Every Get, List and Watch reply carries it,
// so one job with a 20 MB compile log as its error made every ListJobs page that held it fail
// ("Sent message larger than max") for everyone, for as long as the job was kept. The whole
// message is kept as the job's owner-only artifact error.log; the record keeps 16 KiB of it.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace kbench {

inline constexpr size_t kMaxJobErrorBytes = size_t{16} * 1024;
inline constexpr char kJobErrorArtifact[] = "error.log";

// `message` when it fits kMaxJobErrorBytes; otherwise its head, cut at a UTF-8 character
// boundary, and a last line saying how long the whole was and where it is (`kept_as`, e.g.
// "the artifact error.log"; empty: not kept). The result never exceeds kMaxJobErrorBytes.
std::string BoundedJobError(absl::string_view message, absl::string_view kept_as);

}  // namespace kbench
