// Reading and writing the --auth-file with yaml-cpp (whose errors are exceptions, caught here).
#include "server/auth/auth_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/auth/token.h"

namespace kbench::auth {
namespace {

constexpr size_t kMaxNameLength = 64;

absl::Status FieldError(const std::string& path, const std::string& user, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--auth-file ", path, ": user '", user, "': ", what));
}

absl::StatusOr<std::optional<int64_t>> ReadLimit(const YAML::Node& limits, const char* key,
                                                 const std::string& path, const std::string& user) {
  const YAML::Node node = limits[key];
  if (!node) return std::optional<int64_t>();
  int64_t value = 0;
  if (!YAML::convert<int64_t>::decode(node, value) || value < 0) {
    return FieldError(path, user, absl::StrCat("limits.", key, ": not a non-negative integer"));
  }
  return std::optional<int64_t>(value);
}

absl::StatusOr<User> ReadUser(const YAML::Node& node, const std::string& path) {
  User user;
  if (!node.IsMap() || !node["name"]) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-file ", path, ": every entry of users needs a name"));
  }
  user.name = node["name"].as<std::string>();
  if (absl::Status s = ValidateUserName(user.name); !s.ok()) {
    return FieldError(path, user.name, std::string(s.message()));
  }
  absl::StatusOr<Role> role = ParseRole(node["role"] ? node["role"].as<std::string>() : "user");
  if (!role.ok()) return FieldError(path, user.name, std::string(role.status().message()));
  user.role = *role;
  const YAML::Node hashes = node["token_sha256"];
  if (hashes && !hashes.IsSequence()) {
    return FieldError(path, user.name, "token_sha256: must be a list of hex SHA-256 digests");
  }
  for (const YAML::Node& h : hashes) {
    std::string hex = absl::AsciiStrToLower(h.as<std::string>());
    if (!IsSha256Hex(hex)) {
      return FieldError(path, user.name,
                        "token_sha256: an entry is not 64 hex digits (store the token's SHA-256, "
                        "never the token; `kbenchd token add` writes it)");
    }
    user.token_sha256.push_back(std::move(hex));
  }
  const YAML::Node certificates = node["certificate_names"];
  if (certificates && !certificates.IsSequence()) {
    return FieldError(path, user.name, "certificate_names: must be a list of CN or SAN values");
  }
  for (const YAML::Node& c : certificates) {
    std::string name = c.as<std::string>();
    if (name.empty() || name.size() > 256) {
      return FieldError(path, user.name, "certificate_names: an entry is empty or too long");
    }
    user.certificate_names.push_back(std::move(name));
  }
  if (const YAML::Node limits = node["limits"]; limits) {
    KBENCH_ASSIGN_OR_RETURN(user.limits.max_queued_jobs,
                            ReadLimit(limits, "max_queued_jobs", path, user.name));
    KBENCH_ASSIGN_OR_RETURN(user.limits.max_timeout_seconds,
                            ReadLimit(limits, "max_timeout_seconds", path, user.name));
    KBENCH_ASSIGN_OR_RETURN(user.limits.daily_gpu_seconds,
                            ReadLimit(limits, "daily_gpu_seconds", path, user.name));
    KBENCH_ASSIGN_OR_RETURN(user.limits.max_stored_bytes,
                            ReadLimit(limits, "max_stored_bytes", path, user.name));
  }
  return user;
}

absl::StatusOr<AuthFile> ParseAuthFile(const YAML::Node& root, const std::string& path) {
  AuthFile file;
  if (root.IsNull()) return file;  // an empty file: no users yet
  const YAML::Node users = root["users"];
  if (!root.IsMap() || (users && !users.IsSequence())) {
    return absl::InvalidArgumentError(
        absl::StrCat("--auth-file ", path, ": expected a map with a list 'users'"));
  }
  std::set<std::string> names;
  std::set<std::string> hashes;
  std::set<std::string> certificate_names;
  for (const YAML::Node& node : users) {
    KBENCH_ASSIGN_OR_RETURN(User user, ReadUser(node, path));
    if (!names.insert(user.name).second) return FieldError(path, user.name, "listed twice");
    for (const std::string& h : user.token_sha256) {
      // One token must name one user; otherwise who the caller is would depend on file order.
      if (!hashes.insert(h).second) return FieldError(path, user.name, "a token hash is reused");
    }
    for (const std::string& c : user.certificate_names) {
      if (!certificate_names.insert(c).second) {
        return FieldError(path, user.name,
                          absl::StrCat("certificate_names: '", c, "' is listed twice"));
      }
    }
    file.users.push_back(std::move(user));
  }
  return file;
}

void EmitLimits(YAML::Emitter& out, const Limits& limits) {
  if (!limits.max_queued_jobs && !limits.max_timeout_seconds && !limits.daily_gpu_seconds &&
      !limits.max_stored_bytes) {
    return;
  }
  out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
  if (limits.max_queued_jobs) out << YAML::Key << "max_queued_jobs" << *limits.max_queued_jobs;
  if (limits.max_timeout_seconds) {
    out << YAML::Key << "max_timeout_seconds" << *limits.max_timeout_seconds;
  }
  if (limits.daily_gpu_seconds) {
    out << YAML::Key << "daily_gpu_seconds" << *limits.daily_gpu_seconds;
  }
  if (limits.max_stored_bytes) out << YAML::Key << "max_stored_bytes" << *limits.max_stored_bytes;
  out << YAML::EndMap;
}

// The old file's mode, owner and group, when there is one: an operator who made it 0640 for
// the service's group (the systemd unit's dynamic user reads it that way) must not find it
// 0600 and unreadable after `token add`.
std::optional<struct stat> StatOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

// Writes beside `path`, gives the new file the old one's mode and ownership (0600 for a new
// file: the hashes are not secrets, but who may act as admin is), then renames over it.
absl::Status ReplaceKeepingMode(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  const std::optional<struct stat> old = StatOf(path);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", strerror(errno)));
  const std::string text = content + "\n";
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (ok && old) {
    // Ownership first: fchown may clear set-id bits, and only root may give the file away
    // (an owner who is not root keeps the file theirs, which is what they had).
    if (fchown(fd, old->st_uid, old->st_gid) != 0 && geteuid() == 0) ok = false;
    ok = ok && fchmod(fd, old->st_mode & 07777) == 0;
  }
  ok = ok && fsync(fd) == 0;
  const int saved_errno = errno;
  close(fd);
  if (!ok) {
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", strerror(saved_errno)));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int rename_errno = errno;
    unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot replace ", path, ": ", strerror(rename_errno)));
  }
  return absl::OkStatus();
}

}  // namespace

const char* RoleName(Role role) { return role == Role::kAdmin ? "admin" : "user"; }

absl::StatusOr<Role> ParseRole(const std::string& name) {
  if (name == "user") return Role::kUser;
  if (name == "admin") return Role::kAdmin;
  return absl::InvalidArgumentError(absl::StrCat("role: '", name, "' is not user or admin"));
}

const User* AuthFile::Find(const std::string& name) const {
  for (const User& u : users) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

const User* AuthFile::FindByCertificateName(const std::string& certificate_name) const {
  for (const User& u : users) {
    for (const std::string& c : u.certificate_names) {
      if (c == certificate_name) return &u;
    }
  }
  return nullptr;
}

absl::Status ValidateUserName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("name: '", name, "' must have 1 to ", kMaxNameLength, " characters"));
  }
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '@' &&
        c != '-') {
      return absl::InvalidArgumentError(
          absl::StrCat("name: '", name, "' may only hold letters, digits and . _ @ -"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<AuthFile> LoadAuthFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("--auth-file ", path, ": cannot be read"));
  try {
    return ParseAuthFile(YAML::Load(in), path);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("--auth-file ", path, ": ", e.what()));
  }
}

absl::Status SaveAuthFile(const std::string& path, const AuthFile& file) {
  YAML::Emitter out;
  out << YAML::Comment("kbenchd --auth-file: users, roles, limits, SHA-256 of their tokens");
  out << YAML::BeginMap << YAML::Key << "users" << YAML::Value << YAML::BeginSeq;
  for (const User& u : file.users) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << u.name;
    out << YAML::Key << "role" << YAML::Value << RoleName(u.role);
    out << YAML::Key << "token_sha256" << YAML::Value << YAML::BeginSeq;
    for (const std::string& h : u.token_sha256) out << h;
    out << YAML::EndSeq;
    EmitLimits(out, u.limits);
    if (!u.certificate_names.empty()) {
      out << YAML::Key << "certificate_names" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const std::string& c : u.certificate_names) out << c;
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return ReplaceKeepingMode(path, out.c_str());
}

void AddToken(AuthFile* file, const std::string& name, std::optional<Role> role,
              const std::string& sha256) {
  for (User& u : file->users) {
    if (u.name == name) {
      if (role) u.role = *role;
      u.token_sha256.push_back(sha256);
      return;
    }
  }
  file->users.push_back(User{name, role.value_or(Role::kUser), {sha256}, {}, {}});
}

}  // namespace kbench::auth
