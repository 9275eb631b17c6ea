// Who is calling: a bearer token (`authorization: Bearer TOKEN` metadata) checked against the
// auth file's SHA-256 digests, else a client certificate verified against --tls-client-ca and
// listed in the auth file, else the Unix user at the other end of kbenchd's Unix socket, else
// nobody. Only with --open (no auth file, no client CA) is every caller `local`, an admin:
// docs/security/auth.md says who is an admin in each mode.
// Thread-safe: Authenticate runs on gRPC's threads while Reload runs on SIGHUP.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "server/auth/auth_file.h"
#include "server/auth/client_certificate.h"
#include "server/auth/unix_peers.h"

namespace grpc {
class ServerContextBase;
}

namespace kbench::auth {

// The name every caller has in open mode.
inline constexpr char kLocalUser[] = "local";

struct Identity {
  enum class Method { kLocal, kToken, kCertificate, kUnixPeer };
  std::string name;
  Role role = Role::kUser;
  Method method = Method::kLocal;

  bool admin() const { return role == Role::kAdmin; }
};

// The Unix user `uid` as a caller of the Unix socket, named by the password database
// (`uid-N` when it has no entry or a name kbench cannot use). root and kbenchd's own uid are
// admins: each can already do anything an admin can (root by any means, kbenchd's uid by
// editing the store under --data-dir); every other uid is a user.
Identity IdentityOfUid(uid_t uid);

// Why authentication failed: a bounded set, the label of kbench_auth_failures_total.
enum class AuthFailure {
  kNoCredentials,
  kMalformedHeader,
  kUnknownToken,
  kBadCertificateName,
  kCertificateNotForClients,  // no clientAuth extended key usage
  kUnlistedCertificate,       // no user lists the certificate's names in certificate_names
};
const char* AuthFailureName(AuthFailure reason);

struct AuthOptions {
  std::string auth_file;             // empty: no tokens accepted
  bool client_certificates = false;  // --tls-client-ca given: verified certificates identify
  bool open = false;                 // --open: every caller is `local`, an admin
  // The Unix socket's connections and their uids (kbenchd's --unix-socket); null: none. Must
  // outlive the authenticator.
  const UnixPeers* unix_peers = nullptr;
};

// What a call presents, taken from its context (Authenticate(context)) or given by a test.
struct CallCredentials {
  std::optional<absl::string_view> authorization;  // the `authorization` header, if sent
  ClientCertificate certificate;                   // the verified client certificate, if any
  std::optional<uid_t> unix_uid;                   // SO_PEERCRED of a Unix socket's caller
};

class Authenticator {
 public:
  static absl::StatusOr<std::unique_ptr<Authenticator>> Create(const AuthOptions& options);

  // Re-reads the auth file. On error the users loaded before stay in force.
  absl::Status Reload();
  // Called with each failure's reason (metrics); set before serving.
  void SetFailureObserver(std::function<void(AuthFailure)> observer) {
    on_failure_ = std::move(observer);
  }
  bool open() const { return options_.open; }

  // The auth file's limits of user `name`, when the file lists them (quotas apply defaults to
  // the rest).
  std::optional<Limits> LimitsOf(const std::string& name) const;
  // Every user the auth file lists (the metrics' owner labels), in file order.
  std::vector<std::string> UserNames() const;

  // The caller of an RPC, or UNAUTHENTICATED saying what to send.
  absl::StatusOr<Identity> Authenticate(const grpc::ServerContextBase& context) const;
  // The same from the parts of a call.
  absl::StatusOr<Identity> Authenticate(const CallCredentials& call) const;

 private:
  explicit Authenticator(AuthOptions options) : options_(std::move(options)) {}
  absl::StatusOr<Identity> FromToken(absl::string_view header) const;
  absl::StatusOr<Identity> FromCertificate(const ClientCertificate& certificate) const;
  absl::Status Fail(AuthFailure reason, absl::string_view message) const;

  const AuthOptions options_;
  std::function<void(AuthFailure)> on_failure_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const AuthFile> users_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::auth
