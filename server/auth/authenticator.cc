// Token and certificate authentication (see authenticator.h).
#include "server/auth/authenticator.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/auth/token.h"

namespace kbench::auth {
namespace {

constexpr absl::string_view kBearer = "Bearer ";
constexpr char kHowToAuthenticate[] =
    "send 'authorization: Bearer TOKEN' (kbctl --token, $KBENCH_TOKEN or a context's token)";

std::vector<std::string> CertificateNames(const grpc::ServerContextBase& context) {
  std::vector<std::string> names;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return names;
  for (const char* property : {GRPC_X509_CN_PROPERTY_NAME, GRPC_X509_SAN_PROPERTY_NAME}) {
    for (const grpc::string_ref& v : auth->FindPropertyValues(property)) {
      names.emplace_back(v.data(), v.size());
    }
  }
  return names;
}

}  // namespace

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
  std::optional<absl::string_view> header;
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    header = absl::string_view(it->second.data(), it->second.size());
  }
  return Authenticate(header, CertificateNames(context));
}

absl::StatusOr<Identity> Authenticator::Authenticate(
    std::optional<absl::string_view> authorization,
    const std::vector<std::string>& certificate_names) const {
  if (open()) return Identity{kLocalUser, Role::kAdmin, Identity::Method::kLocal};
  // A token names a user explicitly, so it wins over the certificate of the machine it came from.
  if (authorization) return FromToken(*authorization);
  if (!certificate_names.empty()) return FromCertificate(certificate_names);
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
    const std::vector<std::string>& names) const {
  // The CN when it is a valid user name, else the first SAN that is; the CA that signed the
  // certificate vouched for it, so a name absent from the auth file is a member with role user.
  for (const std::string& name : names) {
    if (!ValidateUserName(name).ok()) continue;
    absl::MutexLock lock(&mu_);
    const User* user = users_ != nullptr ? users_->Find(name) : nullptr;
    return Identity{name, user != nullptr ? user->role : Role::kUser,
                    Identity::Method::kCertificate};
  }
  return Fail(AuthFailure::kBadCertificateName,
              absl::StrCat("the client certificate's CN/SAN '", names.front().substr(0, 64),
                           "' is not a user name ([A-Za-z0-9._@-], 1-64 characters)"));
}

}  // namespace kbench::auth
