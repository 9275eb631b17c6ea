// A gRPC status code written as its name ("RESOURCE_EXHAUSTED") by an older kbench, read back as
// the code: a job from a kbenchd that predates Job.error_status (kbctl), a terminal state held on
// disk before the store kept the code as a number (server/store/held_writes.cc). New code passes
// absl::StatusCode and v1::StatusCode, which are numbered alike. Header-only; its users link
// kbench_proto.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kbench/v1/types.pb.h"

namespace kbench {

// The code named `name` (absl::StatusCodeToString's spelling), found among v1::StatusCode's
// values. "" or a name that is no code reads as the store's migration 16 reads one: UNKNOWN for
// a job that `failed`, OK for any other.
inline absl::StatusCode StatusCodeFromName(const std::string& name, bool failed) {
  v1::StatusCode code = v1::STATUS_CODE_OK;
  if (name.empty() || !v1::StatusCode_Parse(absl::StrCat("STATUS_CODE_", name), &code)) {
    return failed ? absl::StatusCode::kUnknown : absl::StatusCode::kOk;
  }
  return static_cast<absl::StatusCode>(code);
}

}  // namespace kbench
