// Writing a local file for kbctl.
#include "client/local_file.h"

#include <fstream>

#include "client/errors.h"

namespace kbench::client {

absl::Status WriteLocalFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  if (!out) return LocalError(absl::StatusCode::kPermissionDenied, "cannot write " + path);
  return absl::OkStatus();
}

}  // namespace kbench::client
