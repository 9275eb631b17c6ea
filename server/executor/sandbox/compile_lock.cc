// The host's compile lock: flock, which the kernel drops when its holder dies (a killed
// executor cannot leave the lock taken, unlike a lock file's mere existence).
#include "server/executor/sandbox/compile_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace kbench::executor::sandbox {

absl::StatusOr<CompileLock> CompileLock::Acquire(const std::string& path,
                                                 const std::atomic<bool>* cancelled,
                                                 std::chrono::milliseconds poll) {
  if (path.empty()) return CompileLock(-1);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("compile lock: cannot open ", path, ": ", strerror(errno)));
  }
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("compile lock: flock ", path, ": ", strerror(err)));
    }
    if (cancelled != nullptr && cancelled->load()) {
      close(fd);
      return absl::CancelledError("job cancelled while waiting for another compile to finish");
    }
    std::this_thread::sleep_for(poll);
  }
  return CompileLock(fd);
}

CompileLock::~CompileLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace kbench::executor::sandbox
