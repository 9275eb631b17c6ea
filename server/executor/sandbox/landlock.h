// Landlock (Linux >= 5.13) for the compile child (issue 24, item 1): after it, the process can
// open only what its policy names (the toolkit, system libraries, its work directory), can make
// no TCP connection (ABI >= 4) and cannot signal or reach abstract sockets outside itself
// (ABI >= 6). Raw syscalls (linux/landlock.h): Debian 12 packages no Landlock library.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::executor::sandbox {

struct FilesystemPolicy {
  std::vector<std::string> read_only;   // read and execute, below each path
  std::vector<std::string> read_write;  // everything, below each path
};

// The running kernel's Landlock ABI version; 0 when it has none (too old, or not enabled in
// the LSM list).
int LandlockAbi();

// Restricts the calling process (and its future children) to `policy`, for good. True when
// enforced; false when the kernel has no Landlock (the caller goes on unconfined). Paths that
// do not exist are skipped. An error only when Landlock exists and refused the policy.
absl::StatusOr<bool> RestrictFilesystem(const FilesystemPolicy& policy);

// The compile child's: read-only the CUDA toolkit (`cuda_include_dir`, /usr/local/cuda and the
// directory NVRTC was loaded from, where it dlopens libnvrtc-builtins), the system's libraries
// and /etc/ld.so.cache; read-write `work_dir` and /dev/null.
FilesystemPolicy CompilePolicy(const std::string& work_dir, const std::string& cuda_include_dir,
                               const std::string& compiler_library_dir);

}  // namespace kbench::executor::sandbox
