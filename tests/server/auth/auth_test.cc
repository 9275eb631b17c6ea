// Unit tests of kbench_auth: the auth file, token checks, certificate names, Unix socket peers,
// authorization decisions, the audit's rate limit and the listening policy.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "server/auth/audit_limiter.h"
#include "server/auth/auth_file.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/server_security.h"
#include "server/auth/token.h"
#include "server/auth/unix_peers.h"

namespace kbench::auth {
namespace {

class TempFile {
 public:
  TempFile() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kbench-auth-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/users.yaml"; }

 private:
  std::string dir_;
};

TEST(Token, MintedTokensAreLongRandomAndHashToHex) {
  absl::StatusOr<std::string> a = MintToken();
  absl::StatusOr<std::string> b = MintToken();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->size(), 4u + 64u);
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_TRUE(IsSha256Hex(Sha256Hex(*a)));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

TEST(AuthFile, RoundTripsUsersRolesHashesAndLimits) {
  TempFile file;
  AuthFile users;
  AddToken(&users, "alice", std::nullopt, Sha256Hex("t1"));
  AddToken(&users, "root", Role::kAdmin, Sha256Hex("t2"));
  AddToken(&users, "root", std::nullopt, Sha256Hex("t3"));  // a second token keeps the role
  users.users[0].limits.max_queued_jobs = 7;
  users.users[0].limits.max_stored_bytes = int64_t{5} << 30;
  ASSERT_TRUE(SaveAuthFile(file.path(), users).ok());
  struct stat st {};
  ASSERT_EQ(stat(file.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::StatusOr<AuthFile> loaded = LoadAuthFile(file.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->users.size(), 2u);
  EXPECT_EQ(loaded->users[0].role, Role::kUser);
  EXPECT_EQ(loaded->users[0].limits.max_queued_jobs, 7);
  EXPECT_EQ(loaded->users[0].limits.max_stored_bytes, int64_t{5} << 30);
  EXPECT_FALSE(loaded->users[0].limits.daily_gpu_seconds.has_value());
  EXPECT_EQ(loaded->users[1].role, Role::kAdmin);
  EXPECT_EQ(loaded->users[1].token_sha256.size(), 2u);
}

// Issue 24: `token add` once rewrote a 0640 file (readable by the service's group) as 0600.
TEST(AuthFile, SaveKeepsTheOldFilesModeOwnerAndGroup) {
  TempFile file;
  std::ofstream(file.path()) << "users: []\n";
  ASSERT_EQ(chmod(file.path().c_str(), 0640), 0);
  struct stat before {};
  ASSERT_EQ(stat(file.path().c_str(), &before), 0);
  AuthFile users;
  AddToken(&users, "alice", std::nullopt, Sha256Hex("t1"));
  ASSERT_TRUE(SaveAuthFile(file.path(), users).ok());
  struct stat after {};
  ASSERT_EQ(stat(file.path().c_str(), &after), 0);
  EXPECT_EQ(after.st_mode & 07777, 0640u);
  EXPECT_EQ(after.st_uid, before.st_uid);
  EXPECT_EQ(after.st_gid, before.st_gid);
  EXPECT_NE(after.st_ino, before.st_ino) << "replaced by a rename, not rewritten in place";
}

TEST(AuthFile, RoundTripsCertificateNamesAndRefusesOneListedTwice) {
  TempFile file;
  AuthFile users;
  AddToken(&users, "alice", std::nullopt, Sha256Hex("t1"));
  users.users[0].certificate_names = {"alice", "alice@lab.example"};
  ASSERT_TRUE(SaveAuthFile(file.path(), users).ok());
  absl::StatusOr<AuthFile> loaded = LoadAuthFile(file.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->users[0].certificate_names, users.users[0].certificate_names);
  EXPECT_EQ(loaded->FindByCertificateName("alice@lab.example"), &loaded->users[0]);
  std::ofstream(file.path()) << "users:\n  - name: a\n    certificate_names: [x]\n"
                             << "  - name: b\n    certificate_names: [x]\n";
  const absl::Status twice = LoadAuthFile(file.path()).status();
  EXPECT_EQ(twice.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("'x' is listed twice"), std::string::npos) << twice;
}

TEST(AuthFile, RejectsAPlainTokenAndNamesTheUser) {
  TempFile file;
  std::ofstream(file.path()) << "users:\n  - name: eve\n    token_sha256: [kbt_secret]\n";
  absl::StatusOr<AuthFile> loaded = LoadAuthFile(file.path());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("user 'eve': token_sha256"), std::string::npos)
      << loaded.status();
}

TEST(AuthFile, RejectsATokenHashSharedByTwoUsers) {
  TempFile file;
  const std::string h = Sha256Hex("same");
  std::ofstream(file.path()) << "users:\n  - {name: a, token_sha256: [" << h
                             << "]}\n  - {name: b, token_sha256: [" << h << "]}\n";
  EXPECT_FALSE(LoadAuthFile(file.path()).ok());
}

CallCredentials Bearer(const std::string& token) {
  static std::vector<std::unique_ptr<std::string>> headers;  // string_views must outlive calls
  headers.push_back(std::make_unique<std::string>("Bearer " + token));
  CallCredentials call;
  call.authorization = *headers.back();
  return call;
}

ClientCertificate Certificate(std::vector<std::string> names) {
  ClientCertificate certificate;
  certificate.names = std::move(names);
  certificate.client_auth = true;
  return certificate;
}

CallCredentials ByCertificate(std::vector<std::string> names) {
  CallCredentials call;
  call.certificate = Certificate(std::move(names));
  return call;
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AuthFile users;
    AddToken(&users, "alice", std::nullopt, Sha256Hex("alice-token"));
    AddToken(&users, "root", Role::kAdmin, Sha256Hex("root-token"));
    users.users[1].certificate_names = {"root-laptop"};
    ASSERT_TRUE(SaveAuthFile(file_.path(), users).ok());
    AuthOptions options;
    options.auth_file = file_.path();
    options.client_certificates = true;
    auto created = Authenticator::Create(options);
    ASSERT_TRUE(created.ok()) << created.status();
    authenticator_ = *std::move(created);
    authenticator_->SetFailureObserver([this](AuthFailure r) { failures_.push_back(r); });
  }
  TempFile file_;
  std::unique_ptr<Authenticator> authenticator_;
  std::vector<AuthFailure> failures_;
};

TEST_F(AuthenticatorTest, AcceptsKnownTokensWithTheirRoles) {
  absl::StatusOr<Identity> alice = authenticator_->Authenticate(Bearer("alice-token"));
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->name, "alice");
  EXPECT_FALSE(alice->admin());
  absl::StatusOr<Identity> root = authenticator_->Authenticate(
      CallCredentials{"Bearer root-token", Certificate({"carol"}), std::nullopt});
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->name, "root");  // the token wins over the certificate
  EXPECT_TRUE(root->admin());
}

TEST_F(AuthenticatorTest, RefusesMissingMalformedAndUnknownCredentialsByReason) {
  EXPECT_EQ(authenticator_->Authenticate(CallCredentials{}).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate(CallCredentials{"alice-token", {}, std::nullopt})
                .status()
                .code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate(Bearer("nope")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate(ByCertificate({"not a name!"})).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(failures_, (std::vector<AuthFailure>{
                           AuthFailure::kNoCredentials, AuthFailure::kMalformedHeader,
                           AuthFailure::kUnknownToken, AuthFailure::kUnlistedCertificate}));
}

TEST_F(AuthenticatorTest, CertificateIsTheUserWhoseCertificateNamesListIt) {
  absl::StatusOr<Identity> root = authenticator_->Authenticate(ByCertificate({"root-laptop"}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->admin());
  EXPECT_EQ(root->method, Identity::Method::kCertificate);
}

// Issue 24: the CA vouches for a name, not for it being an admin's account here.
TEST_F(AuthenticatorTest, RefusesACertificateWhoseNameIsAnAdminsButUnlisted) {
  const absl::Status refused = authenticator_->Authenticate(ByCertificate({"root"})).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_NE(refused.message().find("certificate_names"), std::string::npos) << refused;
  EXPECT_EQ(authenticator_->Authenticate(ByCertificate({"carol"})).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(failures_, (std::vector<AuthFailure>{AuthFailure::kUnlistedCertificate,
                                                 AuthFailure::kUnlistedCertificate}));
}

TEST_F(AuthenticatorTest, RefusesAListedCertificateWithoutTheClientAuthUsage) {
  CallCredentials call;
  call.certificate = Certificate({"root-laptop"});
  call.certificate.client_auth = false;
  EXPECT_EQ(authenticator_->Authenticate(call).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(failures_, std::vector<AuthFailure>{AuthFailure::kCertificateNotForClients});
}

TEST(Authenticator, WithoutAnAuthFileACertificateIsAUserNeverAnAdmin) {
  AuthOptions options;
  options.client_certificates = true;
  auto authenticator = Authenticator::Create(options);
  ASSERT_TRUE(authenticator.ok());
  absl::StatusOr<Identity> root = (*authenticator)->Authenticate(ByCertificate({"root"}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->name, "root");
  EXPECT_FALSE(root->admin());
}

TEST_F(AuthenticatorTest, ReloadKeepsOldUsersWhenTheNewFileIsBroken) {
  std::ofstream(file_.path()) << "users: [";
  EXPECT_FALSE(authenticator_->Reload().ok());
  EXPECT_TRUE(authenticator_->Authenticate(Bearer("alice-token")).ok());
}

TEST(Authenticator, OpenModeMakesEveryCallerTheLocalAdmin) {
  AuthOptions options;
  options.open = true;
  auto open = Authenticator::Create(options);
  ASSERT_TRUE(open.ok());
  absl::StatusOr<Identity> caller = (*open)->Authenticate(CallCredentials{});
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->name, kLocalUser);
  EXPECT_TRUE(caller->admin());
}

TEST(Authorizer, UsersOwnTheirJobsAndAdminsMaySubmitOnBehalf) {
  const Identity alice{"alice", Role::kUser, Identity::Method::kToken};
  const Identity root{"root", Role::kAdmin, Identity::Method::kToken};
  v1::JobSpec spec;
  spec.set_owner("bob");
  ASSERT_TRUE(Authorizer::DecideSubmit(alice, &spec).ok());
  EXPECT_EQ(spec.owner(), "alice");
  spec.set_owner("bob");
  ASSERT_TRUE(Authorizer::DecideSubmit(root, &spec).ok());
  EXPECT_EQ(spec.owner(), "bob");
  spec.set_owner("bad name");
  EXPECT_EQ(Authorizer::DecideSubmit(root, &spec).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Authorizer, RefusesAUsersPriorityAboveZeroNamingItAndAcceptsAnAdmins) {
  const Identity alice{"alice", Role::kUser, Identity::Method::kToken};
  const Identity root{"root", Role::kAdmin, Identity::Method::kToken};
  v1::JobSpec spec;
  spec.set_priority(50);
  const absl::Status refused = Authorizer::DecideSubmit(alice, &spec);
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(refused.message().find("spec.priority: 50"), std::string::npos) << refused;
  EXPECT_TRUE(Authorizer::DecideSubmit(root, &spec).ok());
  spec.set_priority(-3);  // ordering one's own jobs is everyone's
  EXPECT_TRUE(Authorizer::DecideSubmit(alice, &spec).ok());
}

TEST(Authorizer, OnlyTheOwnerOrAnAdminCancels) {
  const Identity alice{"alice", Role::kUser, Identity::Method::kToken};
  const Identity bob{"bob", Role::kUser, Identity::Method::kToken};
  const Identity root{"root", Role::kAdmin, Identity::Method::kToken};
  EXPECT_TRUE(Authorizer::DecideCancel(alice, "j-1", "alice").ok());
  EXPECT_TRUE(Authorizer::DecideCancel(root, "j-1", "alice").ok());
  const absl::Status denied = Authorizer::DecideCancel(bob, "j-1", "alice");
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(denied.message().find("belongs to 'alice'"), std::string::npos) << denied;
}

TEST(ListenPolicy, LoopbackNeedsOpenOrCredentialsAndTheNetworkNeedsTlsAndAuthentication) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:1"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:50051"));
  SecurityFlags flags;
  // Issue 24: on loopback every Unix user of the host is a caller; no accidental admins.
  const absl::Status open_loopback = CheckListenPolicy(flags, "127.0.0.1:0");
  EXPECT_EQ(open_loopback.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(open_loopback.message().find("--open"), std::string::npos) << open_loopback;
  flags.open = true;
  EXPECT_TRUE(CheckListenPolicy(flags, "127.0.0.1:0").ok());
  EXPECT_EQ(CheckListenPolicy(flags, "0.0.0.0:1").code(), absl::StatusCode::kFailedPrecondition);
  flags.open = false;
  flags.tls_cert = "c.pem";
  flags.tls_key = "k.pem";
  EXPECT_FALSE(CheckListenPolicy(flags, "0.0.0.0:1").ok());  // TLS alone is not enough
  flags.auth_file = "users.yaml";
  EXPECT_TRUE(CheckListenPolicy(flags, "0.0.0.0:1").ok());
  SecurityFlags insecure;
  insecure.insecure = true;
  insecure.open = true;
  EXPECT_TRUE(CheckListenPolicy(insecure, "0.0.0.0:1").ok());
}

TEST(ListenPolicy, WithoutListenOrCredentialsServesTheUnixSocket) {
  SecurityFlags flags;
  EXPECT_TRUE(ServesUnixSocket(flags, ""));
  EXPECT_TRUE(CheckListenPolicy(flags, "").ok());
  flags.unix_socket = "/run/kbench/kbenchd.sock";
  flags.unix_socket_group = "gpu";
  EXPECT_TRUE(CheckListenPolicy(flags, "").ok());
  EXPECT_EQ(CheckListenPolicy(flags, "127.0.0.1:0").code(), absl::StatusCode::kInvalidArgument);
  flags.auth_file = "users.yaml";
  EXPECT_FALSE(ServesUnixSocket(flags, ""));
  EXPECT_EQ(CheckListenPolicy(flags, "").code(), absl::StatusCode::kInvalidArgument);
}

TEST(ListenPolicy, RefusesOpenWithCredentials) {
  SecurityFlags flags;
  flags.open = true;
  flags.auth_file = "users.yaml";
  EXPECT_EQ(CheckListenPolicy(flags, "127.0.0.1:0").code(), absl::StatusCode::kInvalidArgument);
}

TEST(UnixPeers, NamesTheUidOfAnAcceptedDescriptorOnly) {
  UnixPeers peers;
  peers.Accepted(7, 1234);
  EXPECT_EQ(peers.UidOf("fd:7"), std::optional<uid_t>(1234));
  EXPECT_EQ(peers.UidOf("fd:8"), std::nullopt);
  EXPECT_EQ(peers.UidOf("ipv4:127.0.0.1:7"), std::nullopt);
  EXPECT_EQ(peers.UidOf("fd:7x"), std::nullopt);
  peers.Accepted(7, 99);  // the number reused by a later connection
  EXPECT_EQ(peers.UidOf("fd:7"), std::optional<uid_t>(99));
}

// Root and kbenchd's own uid can already do anything an admin can; everyone else is a user.
TEST(IdentityOfUid, RootAndTheDaemonsUidAreAdminsOthersUsersByName) {
  const Identity self = IdentityOfUid(geteuid());
  EXPECT_TRUE(self.admin());
  EXPECT_EQ(self.method, Identity::Method::kUnixPeer);
  EXPECT_TRUE(IdentityOfUid(0).admin());
  EXPECT_EQ(IdentityOfUid(0).name, "root");
  if (geteuid() != 65534) {
    const Identity nobody = IdentityOfUid(65534);
    EXPECT_FALSE(nobody.admin());
    EXPECT_TRUE(nobody.name == "nobody" || nobody.name == "uid-65534") << nobody.name;
  }
  // A uid without a passwd entry still gets a usable name.
  EXPECT_EQ(IdentityOfUid(4'000'000'000u).name, "uid-4000000000");
}

TEST(Authenticator, NamesAUnixSocketCallerByItsUid) {
  auto authenticator = Authenticator::Create({});
  ASSERT_TRUE(authenticator.ok());
  CallCredentials call;
  call.unix_uid = 0;
  absl::StatusOr<Identity> root = (*authenticator)->Authenticate(call);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(root->name, "root");
  EXPECT_TRUE(root->admin());
  EXPECT_EQ((*authenticator)->Authenticate(CallCredentials{}).status().code(),
            absl::StatusCode::kUnauthenticated);
  call.authorization = "Bearer kbt_left_in_the_environment";
  EXPECT_TRUE((*authenticator)->Authenticate(call).ok()) << "the uid wins over a stray token";
}

// A flood of bad tokens once wrote 10,000 audit lines in 2 s (issue 24).
TEST(AuditLimiter, WritesOneLinePerPeerPerIntervalThenCountsTheRest) {
  absl::Time now = absl::UnixEpoch();
  AuditLimiter limiter({}, [&now] { return now; });
  EXPECT_EQ(limiter.Admit("ipv4:10.0.0.7:5000"), std::optional<int64_t>(0));
  for (int port = 5001; port < 5100; ++port) {
    EXPECT_EQ(limiter.Admit(absl::StrCat("ipv4:10.0.0.7:", port)), std::nullopt);
  }
  EXPECT_EQ(limiter.Admit("ipv4:10.0.0.8:1"), std::optional<int64_t>(0)) << "another peer";
  now += absl::Milliseconds(999);
  EXPECT_EQ(limiter.Admit("ipv4:10.0.0.7:6000"), std::nullopt);
  now += absl::Milliseconds(1);
  EXPECT_EQ(limiter.Admit("ipv4:10.0.0.7:6001"), std::optional<int64_t>(100));
  EXPECT_EQ(limiter.Admit("ipv4:10.0.0.7:6002"), std::nullopt);
}

TEST(AuditLimiter, BoundsTheLinesOfAFloodFromManyPeers) {
  absl::Time now = absl::UnixEpoch();
  AuditLimiter::Options options;
  options.burst = 3;
  AuditLimiter limiter(options, [&now] { return now; });
  int written = 0;
  for (int host = 0; host < 50; ++host) {
    written += limiter.Admit(absl::StrCat("ipv4:10.0.1.", host, ":1")).has_value() ? 1 : 0;
  }
  EXPECT_EQ(written, 3);
  now += absl::Seconds(1);
  // The first peer refused by the burst learns how many of its failures went unwritten.
  EXPECT_EQ(limiter.Admit("ipv4:10.0.1.3:2"), std::optional<int64_t>(1));
}

TEST(PeerHost, DropsThePortOfIpPeersOnly) {
  EXPECT_EQ(PeerHost("ipv4:10.0.0.7:51234"), "ipv4:10.0.0.7");
  EXPECT_EQ(PeerHost("ipv6:[::1]:5"), "ipv6:[::1]");
  EXPECT_EQ(PeerHost("fd:7"), "fd:7");
  EXPECT_EQ(PeerHost("unix:/run/kbench.sock"), "unix:/run/kbench.sock");
}

}  // namespace
}  // namespace kbench::auth
