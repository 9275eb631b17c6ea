// Who is calling: a bearer token (`authorization: Bearer TOKEN` metadata) checked against the
// auth file's SHA-256 digests, else a client certificate verified against --tls-client-ca, else
// nobody. With neither an auth file nor a client CA the daemon is open (loopback, or --insecure)
// and every caller is `local`, an admin, so a single-user setup needs no credentials.
// Thread-safe: Authenticate runs on gRPC's threads while Reload runs on SIGHUP.
#pragma once

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

namespace grpc {
class ServerContextBase;
}

namespace kbench::auth {

// The name every caller has in open mode.
inline constexpr char kLocalUser[] = "local";

struct Identity {
  enum class Method { kLocal, kToken, kCertificate };
  std::string name;
  Role role = Role::kUser;
  Method method = Method::kLocal;

  bool admin() const { return role == Role::kAdmin; }
};

// Why authentication failed: a bounded set, the label of kbench_auth_failures_total.
enum class AuthFailure { kNoCredentials, kMalformedHeader, kUnknownToken, kBadCertificateName };
const char* AuthFailureName(AuthFailure reason);

struct AuthOptions {
  std::string auth_file;             // empty: no tokens accepted
  bool client_certificates = false;  // --tls-client-ca given: verified certificates identify
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
  bool open() const { return options_.auth_file.empty() && !options_.client_certificates; }

  // The auth file's limits of user `name`, when the file lists them (quotas apply defaults to
  // the rest).
  std::optional<Limits> LimitsOf(const std::string& name) const;
  // Every user the auth file lists (the metrics' owner labels), in file order.
  std::vector<std::string> UserNames() const;

  // The caller of an RPC, or UNAUTHENTICATED saying what to send.
  absl::StatusOr<Identity> Authenticate(const grpc::ServerContextBase& context) const;
  // The same from the parts of a call: the `authorization` header if sent, and the verified
  // client certificate's names (CN first, then SANs; empty without one).
  absl::StatusOr<Identity> Authenticate(std::optional<absl::string_view> authorization,
                                        const std::vector<std::string>& certificate_names) const;

 private:
  explicit Authenticator(AuthOptions options) : options_(std::move(options)) {}
  absl::StatusOr<Identity> FromToken(absl::string_view header) const;
  absl::StatusOr<Identity> FromCertificate(const std::vector<std::string>& names) const;
  absl::Status Fail(AuthFailure reason, absl::string_view message) const;

  const AuthOptions options_;
  std::function<void(AuthFailure)> on_failure_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const AuthFile> users_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kbench::auth
