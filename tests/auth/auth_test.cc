// Unit tests of kbench_auth: the auth file, token checks, certificate names, authorization
// decisions and the listening policy.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "server/auth/auth_file.h"
#include "server/auth/authenticator.h"
#include "server/auth/authorizer.h"
#include "server/auth/server_security.h"
#include "server/auth/token.h"

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
  ASSERT_TRUE(SaveAuthFile(file.path(), users).ok());
  struct stat st {};
  ASSERT_EQ(stat(file.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::StatusOr<AuthFile> loaded = LoadAuthFile(file.path());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->users.size(), 2u);
  EXPECT_EQ(loaded->users[0].role, Role::kUser);
  EXPECT_EQ(loaded->users[0].limits.max_queued_jobs, 7);
  EXPECT_FALSE(loaded->users[0].limits.daily_gpu_seconds.has_value());
  EXPECT_EQ(loaded->users[1].role, Role::kAdmin);
  EXPECT_EQ(loaded->users[1].token_sha256.size(), 2u);
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

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AuthFile users;
    AddToken(&users, "alice", std::nullopt, Sha256Hex("alice-token"));
    AddToken(&users, "root", Role::kAdmin, Sha256Hex("root-token"));
    ASSERT_TRUE(SaveAuthFile(file_.path(), users).ok());
    auto created = Authenticator::Create({file_.path(), true});
    ASSERT_TRUE(created.ok()) << created.status();
    authenticator_ = *std::move(created);
    authenticator_->SetFailureObserver([this](AuthFailure r) { failures_.push_back(r); });
  }
  TempFile file_;
  std::unique_ptr<Authenticator> authenticator_;
  std::vector<AuthFailure> failures_;
};

TEST_F(AuthenticatorTest, AcceptsKnownTokensWithTheirRoles) {
  absl::StatusOr<Identity> alice = authenticator_->Authenticate("Bearer alice-token", {});
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->name, "alice");
  EXPECT_FALSE(alice->admin());
  absl::StatusOr<Identity> root = authenticator_->Authenticate("Bearer root-token", {"carol"});
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->name, "root");  // the token wins over the certificate
  EXPECT_TRUE(root->admin());
}

TEST_F(AuthenticatorTest, RefusesMissingMalformedAndUnknownCredentialsByReason) {
  EXPECT_EQ(authenticator_->Authenticate(std::nullopt, {}).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate("alice-token", {}).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate("Bearer nope", {}).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(authenticator_->Authenticate(std::nullopt, {"not a name!"}).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(failures_, (std::vector<AuthFailure>{
                           AuthFailure::kNoCredentials, AuthFailure::kMalformedHeader,
                           AuthFailure::kUnknownToken, AuthFailure::kBadCertificateName}));
}

TEST_F(AuthenticatorTest, CertificateNamesAUserWithTheFilesRoleOrUser) {
  absl::StatusOr<Identity> root = authenticator_->Authenticate(std::nullopt, {"root"});
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(root->admin());
  absl::StatusOr<Identity> carol = authenticator_->Authenticate(std::nullopt, {"carol"});
  ASSERT_TRUE(carol.ok());
  EXPECT_EQ(carol->name, "carol");
  EXPECT_FALSE(carol->admin());
}

TEST_F(AuthenticatorTest, ReloadKeepsOldUsersWhenTheNewFileIsBroken) {
  std::ofstream(file_.path()) << "users: [";
  EXPECT_FALSE(authenticator_->Reload().ok());
  EXPECT_TRUE(authenticator_->Authenticate("Bearer alice-token", {}).ok());
}

TEST(Authenticator, OpenModeMakesEveryCallerTheLocalAdmin) {
  auto open = Authenticator::Create({});
  ASSERT_TRUE(open.ok());
  absl::StatusOr<Identity> caller = (*open)->Authenticate(std::nullopt, {});
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

TEST(ListenPolicy, LoopbackIsOpenAndTheNetworkNeedsTlsAndAuthentication) {
  EXPECT_TRUE(IsLoopbackAddress("127.0.0.1:50051"));
  EXPECT_TRUE(IsLoopbackAddress("[::1]:50051"));
  EXPECT_TRUE(IsLoopbackAddress("localhost:1"));
  EXPECT_FALSE(IsLoopbackAddress("0.0.0.0:50051"));
  EXPECT_FALSE(IsLoopbackAddress("[::]:50051"));
  SecurityFlags flags;
  EXPECT_TRUE(CheckListenPolicy(flags, "127.0.0.1:0").ok());
  EXPECT_EQ(CheckListenPolicy(flags, "0.0.0.0:1").code(), absl::StatusCode::kFailedPrecondition);
  flags.tls_cert = "c.pem";
  flags.tls_key = "k.pem";
  EXPECT_FALSE(CheckListenPolicy(flags, "0.0.0.0:1").ok());  // TLS alone is not enough
  flags.auth_file = "users.yaml";
  EXPECT_TRUE(CheckListenPolicy(flags, "0.0.0.0:1").ok());
  SecurityFlags insecure;
  insecure.insecure = true;
  EXPECT_TRUE(CheckListenPolicy(insecure, "0.0.0.0:1").ok());
}

}  // namespace
}  // namespace kbench::auth
