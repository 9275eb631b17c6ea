#include "server/store/file_moves.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace kbench::store {
namespace {

namespace fs = std::filesystem;

absl::Status ErrnoError(int error, const std::string& what) {
  return absl::ErrnoToStatus(error, what);
}

absl::Status SyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, absl::StrCat("open '", path, "' to sync it"));
  const int synced = ::fsync(fd);
  const int sync_errno = errno;
  ::close(fd);
  if (synced != 0) return ErrnoError(sync_errno, absl::StrCat("fsync '", path, "'"));
  return absl::OkStatus();
}

}  // namespace

absl::Status MoveFile(const std::string& source, const std::string& destination) {
  if (::rename(source.c_str(), destination.c_str()) == 0) return absl::OkStatus();
  if (errno != EXDEV) {
    return ErrnoError(errno, absl::StrCat("rename '", source, "' to '", destination, "'"));
  }
  std::error_code error;
  fs::copy_file(source, destination, fs::copy_options::overwrite_existing, error);
  if (error) {
    return absl::ErrnoToStatus(error.value(),
                               absl::StrCat("copy '", source, "' to '", destination, "'"));
  }
  if (absl::Status s = SyncPath(destination, O_RDONLY); !s.ok()) return s;
  if (::unlink(source.c_str()) != 0) {
    return ErrnoError(errno, absl::StrCat("remove '", source, "' after copying it"));
  }
  return absl::OkStatus();
}

absl::Status WriteFileDurably(const std::string& path, const std::string& bytes) {
  const std::string temporary = absl::StrCat(path, ".writing");
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError(errno, absl::StrCat("create '", temporary, "'"));
  size_t written = 0;
  int error = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = errno;
      break;
    }
    written += static_cast<size_t>(n);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  ::close(fd);
  if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    return ErrnoError(error, absl::StrCat("write '", path, "'"));
  }
  return SyncPath(fs::path(path).parent_path().string(), O_RDONLY | O_DIRECTORY);
}

}  // namespace kbench::store
