// Landlock through its three syscalls (issue 24, item 1).
#include "server/executor/sandbox/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kbench::executor::sandbox {
namespace {

// The bits of ABI versions 3 to 6, which the build's linux/landlock.h (Debian 12: 6.1's) may
// lack; values from the kernel's include/uapi/linux/landlock.h.
constexpr uint64_t kFsTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kFsIoctlDev = 1ULL << 15;  // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0;   // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ULL << 1;

// struct landlock_ruleset_attr as of ABI 6; the kernel is given the prefix its ABI knows.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;  // ABI 4
  uint64_t scoped = 0;              // ABI 6
};

// The file-system rights each ABI version knows (Documentation/userspace-api/landlock.rst).
uint64_t HandledFsRights(int abi) {
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: EXECUTE .. MAKE_SYM
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= kFsTruncate;
  if (abi >= 5) rights |= kFsIoctlDev;
  return rights;
}

constexpr uint64_t kReadRights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
// The rights that apply to a file (not a directory); a rule on a file may grant only these.
constexpr uint64_t kFileRights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                 LANDLOCK_ACCESS_FS_READ_FILE | kFsTruncate | kFsIoctlDev;

absl::Status AddRule(int ruleset, const std::string& path, uint64_t rights) {
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();  // an absent path grants nothing
  struct stat st {};
  if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= kFileRights;
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  const long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  const int err = errno;
  close(fd);
  if (r != 0) {
    return absl::InternalError(absl::StrCat("landlock_add_rule(", path, "): ", strerror(err)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> CreateRuleset(int abi) {
  RulesetAttr attr;
  attr.handled_access_fs = HandledFsRights(abi);
  size_t size = sizeof(attr.handled_access_fs);
  // No rule grants a port: no TCP bind or connect (ABI 4); no abstract socket or signal beyond
  // this process's own domain (ABI 6).
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    size += sizeof(attr.handled_access_net);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size += sizeof(attr.scoped);
  }
  const long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0)
    return absl::InternalError(absl::StrCat("landlock_create_ruleset: ", strerror(errno)));
  return static_cast<int>(fd);
}

}  // namespace

int LandlockAbi() {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

absl::StatusOr<bool> RestrictFilesystem(const FilesystemPolicy& policy) {
  const int abi = LandlockAbi();
  if (abi == 0) return false;
  absl::StatusOr<int> ruleset = CreateRuleset(abi);
  if (!ruleset.ok()) return ruleset.status();
  absl::Status s;
  for (const std::string& p : policy.read_only) {
    if (s.ok()) s = AddRule(*ruleset, p, kReadRights & HandledFsRights(abi));
  }
  for (const std::string& p : policy.read_write) {
    if (s.ok()) s = AddRule(*ruleset, p, HandledFsRights(abi));
  }
  // Required for an unprivileged process: no exec may then gain privileges the ruleset lacks.
  if (s.ok() && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    s = absl::InternalError(absl::StrCat("prctl(PR_SET_NO_NEW_PRIVS): ", strerror(errno)));
  }
  if (s.ok() && syscall(SYS_landlock_restrict_self, *ruleset, 0) != 0) {
    s = absl::InternalError(absl::StrCat("landlock_restrict_self: ", strerror(errno)));
  }
  close(*ruleset);
  if (!s.ok()) return s;
  return true;
}

FilesystemPolicy CompilePolicy(const std::string& work_dir, const std::string& cuda_include_dir,
                               const std::string& compiler_library_dir) {
  FilesystemPolicy policy;
  policy.read_only = {cuda_include_dir, "/usr/local/cuda", compiler_library_dir, "/lib", "/lib64",
                      "/usr/lib",       "/usr/lib64",      "/etc/ld.so.cache"};
  policy.read_write = {work_dir, "/dev/null"};
  return policy;
}

}  // namespace kbench::executor::sandbox
