// Reading and writing the --auth-file with yaml-cpp (whose errors are exceptions, caught here).
#include "server/auth/auth_file.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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
  if (const YAML::Node limits = node["limits"]; limits) {
    KBENCH_ASSIGN_OR_RETURN(user.limits.max_queued_jobs,
                            ReadLimit(limits, "max_queued_jobs", path, user.name));
    KBENCH_ASSIGN_OR_RETURN(user.limits.max_timeout_seconds,
                            ReadLimit(limits, "max_timeout_seconds", path, user.name));
    KBENCH_ASSIGN_OR_RETURN(user.limits.daily_gpu_seconds,
                            ReadLimit(limits, "daily_gpu_seconds", path, user.name));
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
  for (const YAML::Node& node : users) {
    KBENCH_ASSIGN_OR_RETURN(User user, ReadUser(node, path));
    if (!names.insert(user.name).second) return FieldError(path, user.name, "listed twice");
    for (const std::string& h : user.token_sha256) {
      // One token must name one user; otherwise who the caller is would depend on file order.
      if (!hashes.insert(h).second) return FieldError(path, user.name, "a token hash is reused");
    }
    file.users.push_back(std::move(user));
  }
  return file;
}

void EmitLimits(YAML::Emitter& out, const Limits& limits) {
  if (!limits.max_queued_jobs && !limits.max_timeout_seconds && !limits.daily_gpu_seconds) return;
  out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
  if (limits.max_queued_jobs) out << YAML::Key << "max_queued_jobs" << *limits.max_queued_jobs;
  if (limits.max_timeout_seconds) {
    out << YAML::Key << "max_timeout_seconds" << *limits.max_timeout_seconds;
  }
  if (limits.daily_gpu_seconds) {
    out << YAML::Key << "daily_gpu_seconds" << *limits.daily_gpu_seconds;
  }
  out << YAML::EndMap;
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
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  const std::string tmp = path + ".tmp";
  {
    // 0600 from creation: the hashes are not secrets, but who may act as admin is.
    const mode_t old = umask(077);
    std::ofstream f(tmp, std::ios::trunc);
    umask(old);
    f << out.c_str() << "\n";
    if (!f.flush()) return absl::InternalError(absl::StrCat("cannot write ", tmp));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot replace ", path, ": ", ec.message()));
  return absl::OkStatus();
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
  file->users.push_back(User{name, role.value_or(Role::kUser), {sha256}, {}});
}

}  // namespace kbench::auth
