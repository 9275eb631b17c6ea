// Token and certificate authentication (see authenticator.h).
#include "server/auth/authenticator.h"

#include <grpcpp/server_context.h>
#include <pwd.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/auth/token.h"

namespace kbench::auth {
namespace {

constexpr absl::string_view kBearer = "Bearer ";
constexpr char kHowToAuthenticate[] =
    "send 'authorization: Bearer TOKEN' (kbctl --token, $KBENCH_TOKEN or a context's token)";

// getpwuid_r's name for uid, if it has one.
std::optional<std::string> PasswdName(uid_t uid) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    return std::nullopt;
  }
  return std::string(found->pw_name);
}

}  // namespace

Identity IdentityOfUid(uid_t uid) {
  std::string name = PasswdName(uid).value_or("");
  if (!ValidateUserName(name).ok()) name = absl::StrCat("uid-", uid);
  const bool admin = uid == 0 || uid == geteuid();
  return Identity{name, admin ? Role::kAdmin : Role::kUser, Identity::Method::kUnixPeer};
}

const char* AuthFailureName(AuthFailure reason) {
  switch (reason) {
    case AuthFailure::kNoCredentials:
      return "no_credentials";
    case AuthFailure::kMalformedHeader:
      return "malformed_header";
    case AuthFailure::kUnknownToken:
      return "unknown_token";
    case AuthFailure::kBadCertificateName:
      return "bad_certificate_name";
    case AuthFailure::kCertificateNotForClients:
      return "certificate_not_for_clients";
    case AuthFailure::kUnlistedCertificate:
      return "unlisted_certificate";
  }
  return "other";
}

absl::StatusOr<std::unique_ptr<Authenticator>> Authenticator::Create(const AuthOptions& options) {
  std::unique_ptr<Authenticator> authenticator(new Authenticator(options));
  if (!options.auth_file.empty()) KBENCH_RETURN_IF_ERROR(authenticator->Reload());
  return authenticator;
}

absl::Status Authenticator::Reload() {
  if (options_.auth_file.empty()) return absl::OkStatus();
  KBENCH_ASSIGN_OR_RETURN(AuthFile file, LoadAuthFile(options_.auth_file));
  auto users = std::make_shared<const AuthFile>(std::move(file));
  absl::MutexLock lock(&mu_);
  users_ = std::move(users);
  return absl::OkStatus();
}

std::optional<Limits> Authenticator::LimitsOf(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  const User* user = users_ != nullptr ? users_->Find(name) : nullptr;
  if (user == nullptr) return std::nullopt;
  return user->limits;
}

std::vector<std::string> Authenticator::UserNames() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  if (users_ == nullptr) return names;
  for (const User& u : users_->users) names.push_back(u.name);
  return names;
}

absl::Status Authenticator::Fail(AuthFailure reason, absl::string_view message) const {
  if (on_failure_) on_failure_(reason);
  return absl::UnauthenticatedError(message);
}

absl::StatusOr<Identity> Authenticator::Authenticate(const grpc::ServerContextBase& context) const {
  CallCredentials call;
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    call.authorization = absl::string_view(it->second.data(), it->second.size());
  }
  call.certificate = ClientCertificateOf(context);
  if (options_.unix_peers != nullptr) call.unix_uid = options_.unix_peers->UidOf(context.peer());
  return Authenticate(call);
}

absl::StatusOr<Identity> Authenticator::Authenticate(const CallCredentials& call) const {
  if (open()) return Identity{kLocalUser, Role::kAdmin, Identity::Method::kLocal};
  // The kernel vouches for a Unix socket's caller: nothing to present, nothing to forge. The
  // socket is served only without an auth file, so a token sent out of habit ($KBENCH_TOKEN)
  // could match no one and is ignored rather than refused.
  if (call.unix_uid) return IdentityOfUid(*call.unix_uid);
  // A token names a user explicitly, so it wins over the certificate of the machine it came from.
  if (call.authorization) return FromToken(*call.authorization);
  if (call.certificate.presented()) return FromCertificate(call.certificate);
  return Fail(AuthFailure::kNoCredentials, absl::StrCat("no credentials: ", kHowToAuthenticate));
}

absl::StatusOr<Identity> Authenticator::FromToken(absl::string_view header) const {
  if (!absl::StartsWith(header, kBearer) || header.size() == kBearer.size()) {
    return Fail(
        AuthFailure::kMalformedHeader,
        absl::StrCat("the authorization header is not 'Bearer TOKEN': ", kHowToAuthenticate));
  }
  // Hashing first makes the comparisons below independent of the presented token's bytes; they
  // also run over every stored digest, without an early exit, in constant time each.
  const std::string digest = Sha256Hex(header.substr(kBearer.size()));
  std::shared_ptr<const AuthFile> users;
  {
    absl::MutexLock lock(&mu_);
    users = users_;
  }
  const User* found = nullptr;
  if (users != nullptr) {
    for (const User& u : users->users) {
      for (const std::string& stored : u.token_sha256) {
        if (ConstantTimeEquals(digest, stored)) found = &u;
      }
    }
  }
  if (found == nullptr) {
    return Fail(AuthFailure::kUnknownToken,
                "the bearer token is not valid (unknown, revoked or mistyped); ask an admin for "
                "one minted with `kbenchd token add`");
  }
  return Identity{found->name, found->role, Identity::Method::kToken};
}

absl::StatusOr<Identity> Authenticator::FromCertificate(
    const ClientCertificate& certificate) const {
  const std::string shown = certificate.names.front().substr(0, 64);
  if (!certificate.client_auth) {
    return Fail(AuthFailure::kCertificateNotForClients,
                absl::StrCat("the client certificate '", shown,
                             "' lacks the clientAuth extended key usage; ask for one issued "
                             "for client authentication"));
  }
  std::shared_ptr<const AuthFile> users;
  {
    absl::MutexLock lock(&mu_);
    users = users_;
  }
  // With an auth file, the file says which user a certificate is: the CA vouches for the name
  // it signed, not for that name being anyone's account here (a CN equal to an admin's name is
  // not that admin unless the admin's entry lists it).
  if (users != nullptr) {
    for (const std::string& name : certificate.names) {
      if (const User* user = users->FindByCertificateName(name); user != nullptr) {
        return Identity{user->name, user->role, Identity::Method::kCertificate};
      }
    }
    return Fail(AuthFailure::kUnlistedCertificate,
                absl::StrCat("the client certificate '", shown,
                             "' is not listed in any user's certificate_names in the auth file"));
  }
  // Without an auth file there is no admin to impersonate: the CA's name is a user.
  for (const std::string& name : certificate.names) {
    if (ValidateUserName(name).ok())
      return Identity{name, Role::kUser, Identity::Method::kCertificate};
  }
  return Fail(AuthFailure::kBadCertificateName,
              absl::StrCat("the client certificate's CN/SAN '", shown,
                           "' is not a user name ([A-Za-z0-9._@-], 1-64 characters)"));
}

}  // namespace kbench::auth
