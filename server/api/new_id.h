// Ids of what the API creates: a prefix ("j" for a job, "s" for a sweep), a dash and 16 hex
// digits from a CSPRNG-seeded generator per thread: unguessable enough, short.
#pragma once

#include <string>

#include "absl/strings/string_view.h"

namespace kbench::api {

std::string NewId(absl::string_view prefix);

}  // namespace kbench::api
