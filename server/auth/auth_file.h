// The --auth-file: the lab's users, their roles, optional limits, and the SHA-256 of each of
// their tokens (never a token). YAML, edited by people and by `kbenchd token add`:
//
//   users:
//     - name: alice
//       role: user            # user | admin
//       token_sha256: [9f86d081...]   # several while a token is being rotated
//       limits: {max_queued_jobs: 100, max_timeout_seconds: 600, daily_gpu_seconds: 36000,
//                max_stored_bytes: 4294967296}
//       certificate_names: [alice, alice@lab.example]  # client certificates that are alice
//
// A client certificate (with --tls-client-ca) is a user only through certificate_names: the CA
// vouches for the name it signed, the auth file says which user that name is (issue 24, item
// 5: a certificate whose CN merely equals an admin's name is not that admin).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace kbench::auth {

enum class Role { kUser, kAdmin };

const char* RoleName(Role role);
absl::StatusOr<Role> ParseRole(const std::string& name);

// Per-user limits; unset means the daemon's default. Enforced by the scheduler's quotas.
struct Limits {
  std::optional<int64_t> max_queued_jobs;
  std::optional<int64_t> max_timeout_seconds;
  std::optional<int64_t> daily_gpu_seconds;
  // Bytes of job specs, their artifacts, registered variants and sweeps kept; 0: no bound.
  std::optional<int64_t> max_stored_bytes;
};

struct User {
  std::string name;
  Role role = Role::kUser;
  std::vector<std::string> token_sha256;  // lower-case hex
  Limits limits;
  // A verified client certificate whose CN or a SAN is one of these is this user.
  std::vector<std::string> certificate_names;
};

struct AuthFile {
  std::vector<User> users;

  const User* Find(const std::string& name) const;
  // The user listing `certificate_name` in certificate_names, or null.
  const User* FindByCertificateName(const std::string& certificate_name) const;
};

// Names are what a job's owner and the metrics' owner label show: [A-Za-z0-9._@-], 1-64 chars.
absl::Status ValidateUserName(const std::string& name);

// Reads and checks the file; errors name the file, the user and the field.
absl::StatusOr<AuthFile> LoadAuthFile(const std::string& path);
// Replaces the file atomically (write beside it, then rename). The new file keeps the old one's
// mode, owner and group (a new file is 0600). Comments in the old file are not kept.
absl::Status SaveAuthFile(const std::string& path, const AuthFile& file);

// Adds `sha256` to user `name`, creating the user (role `role`, else user) if missing. A given
// role also replaces an existing user's, so `token add bob --role admin` promotes bob, and a
// second token for an admin without --role leaves them admin.
void AddToken(AuthFile* file, const std::string& name, std::optional<Role> role,
              const std::string& sha256);

}  // namespace kbench::auth
