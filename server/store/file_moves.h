// File moves and writes that survive a crash, for the stores under --data-dir.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace kbench::store {

// rename(2) when source and destination share a file system; otherwise copy, flush, then remove
// the source, so a crash leaves at worst both copies, never neither.
absl::Status MoveFile(const std::string& source, const std::string& destination);

// Writes `bytes` to `path` whole or not at all: a temporary file beside it, fsynced, renamed
// over it, and the directory fsynced. The error names the file and errno's cause (ENOSPC on a
// full disk).
absl::Status WriteFileDurably(const std::string& path, const std::string& bytes);

}  // namespace kbench::store
