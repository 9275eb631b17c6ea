// Writing a file kbctl was asked to write (-f/--file): a report, a diff's page.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace kbench::client {

// Writes `bytes` to `path` (truncating); a local error naming the path when it cannot.
absl::Status WriteLocalFile(const std::string& path, const std::string& bytes);

}  // namespace kbench::client
