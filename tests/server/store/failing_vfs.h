// A SQLite VFS for tests that fails writes on request, as a full or failing disk does: it wraps
// the default VFS and, while armed, answers every write, truncate and sync with an error.
// Installed as the default VFS, so a store opened normally goes through it.
#pragma once

namespace kbench::store::testing {

class FailingVfs {
 public:
  // Registers the VFS as SQLite's default (once per process; later calls do nothing).
  static void Install();
  // While true, writes fail with SQLITE_FULL and syncs with SQLITE_IOERR_FSYNC.
  static void FailWrites(bool fail);
  // Writes refused since the process started.
  static int RefusedWrites();
  // Syncs (fsync) that reached the disk since the process started.
  static int Syncs();
};

// Arms the VFS for a scope.
class ScopedFullDisk {
 public:
  ScopedFullDisk() { FailingVfs::FailWrites(true); }
  ~ScopedFullDisk() { FailingVfs::FailWrites(false); }
  ScopedFullDisk(const ScopedFullDisk&) = delete;
  ScopedFullDisk& operator=(const ScopedFullDisk&) = delete;
};

}  // namespace kbench::store::testing
