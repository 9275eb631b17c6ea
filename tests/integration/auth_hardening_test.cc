// Integration: issue 24's authentication hardening against a real kbenchd. No accidental admins
// (a TCP address without credentials needs --open; without one, the Unix socket names each
// caller by its uid), /metrics kept on loopback, and idempotency keys unique per owner.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/integration/daemon.h"
#include "tests/server/auth/credentials.h"

namespace kbench::testing {
namespace {

using grpc::StatusCode;

absl::StatusOr<v1::Job> SubmitWithKey(v1::KbenchService::Stub& stub, const std::string& token,
                                      const std::string& key) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = QuickCpuSpec();
  request.set_idempotency_key(key);
  v1::SubmitJobResponse response;
  const grpc::Status s = stub.SubmitJob(ContextFor(token).get(), request, &response);
  if (!s.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  }
  return response.job();
}

// Runs `command` to its exit; returns its exit status and appends its output to *out.
int RunCapturing(const std::string& command, std::string* out) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return -1;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p) != nullptr) *out += buf;
  return pclose(p);
}

TEST(NoAccidentalAdmins, RefusesALoopbackListenWithoutCredentialsOrOpen) {
  TempDir dir;
  std::string out;
  EXPECT_NE(RunCapturing(absl::StrCat(KBENCHD_PATH, " --listen 127.0.0.1:0 --data-dir ", dir.path(),
                                      "/data"),
                         &out),
            0);
  EXPECT_NE(out.find("refusing --listen 127.0.0.1:0 without authentication"), std::string::npos)
      << out;
  EXPECT_NE(out.find("--open"), std::string::npos) << out;
}

// /metrics has no TLS nor authentication: a network address must be asked for explicitly.
TEST(MetricsExposure, RefusesANonLoopbackMetricsAddressWithoutMetricsInsecure) {
  TempDir dir;
  std::string out;
  EXPECT_NE(RunCapturing(absl::StrCat(KBENCHD_PATH, " --open --listen 127.0.0.1:0 --data-dir ",
                                      dir.path(), "/data --metrics-listen 0.0.0.0:0"),
                         &out),
            0);
  EXPECT_NE(out.find("refusing --metrics-listen 0.0.0.0:0"), std::string::npos) << out;
  EXPECT_NE(out.find("--metrics-insecure"), std::string::npos) << out;
}

TEST(UnixSocket, NamesTheCallerByItsUidAndKeepsTheSocketPrivate) {
  TempDir dir;
  const std::string socket = dir.path() + "/kbenchd.sock";
  Daemon daemon(dir.path() + "/data", {"--unix-socket", socket});
  EXPECT_EQ(daemon.address(), "unix:" + socket);
  struct stat st {};
  ASSERT_EQ(stat(socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // This process's uid is kbenchd's: an admin, named by the password database.
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), QuickCpuSpec());
  ASSERT_TRUE(job.ok()) << job.status();
  const passwd* me = getpwuid(geteuid());
  ASSERT_NE(me, nullptr);
  EXPECT_EQ(job->spec().owner(), me->pw_name);
}

// Another Unix user is a user named by its account, not an admin: `nobody` (when the tests run
// as root, who can become it) cannot cancel root's job.
TEST(UnixSocket, AnotherUidIsAUserWhoCannotCancelOthersJobs) {
  if (geteuid() != 0 || std::system("command -v setpriv >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "needs root and setpriv to call as another uid";
  }
  TempDir dir;
  const std::string socket = dir.path() + "/kbenchd.sock";
  Daemon daemon(dir.path() + "/data", {"--unix-socket", socket});
  absl::StatusOr<v1::Job> job = Submit(daemon.stub(), LongCpuSpec(30));
  ASSERT_TRUE(job.ok()) << job.status();
  // Test-only: let `nobody` reach the socket (kbenchd made it 0600) and its directory.
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(chmod(socket.c_str(), 0666), 0);
  const std::string as_nobody = absl::StrCat(
      "setpriv --reuid=65534 --regid=65534 --clear-groups env "
      "KBENCH_CONFIG=/nonexistent/kbench.yaml ",
      KBCTL_PATH, " --server unix:", socket, " ");
  std::string out;
  EXPECT_NE(RunCapturing(as_nobody + "cancel " + job->id(), &out), 0) << out;
  EXPECT_NE(out.find("you are 'nobody'"), std::string::npos) << out;
  v1::CancelJobRequest cancel;
  cancel.set_job_id(job->id());
  v1::CancelJobResponse cancelled;
  EXPECT_TRUE(daemon.stub().CancelJob(ContextFor("").get(), cancel, &cancelled).ok());
}

// Issue 24: `kbenchd token add` rewrote a 0640 auth file (readable by the service's group) 0600.
TEST(TokenAdd, KeepsTheAuthFilesMode) {
  TempDir dir;
  const std::string auth_file = dir.path() + "/users.yaml";
  ASSERT_FALSE(MintToken(auth_file, "alice").empty());
  ASSERT_EQ(chmod(auth_file.c_str(), 0640), 0);
  ASSERT_FALSE(MintToken(auth_file, "bob").empty());
  struct stat st {};
  ASSERT_EQ(stat(auth_file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// Issue 24: bob submitting first under alice's key must not take it.
TEST(IdempotencyKeys, AreUniquePerOwner) {
  TempDir dir;
  const std::string auth_file = dir.path() + "/users.yaml";
  const std::string alice = MintToken(auth_file, "alice");
  const std::string bob = MintToken(auth_file, "bob");
  Daemon daemon(dir.path() + "/data", {"--auth-file", auth_file});
  absl::StatusOr<v1::Job> bobs = SubmitWithKey(daemon.stub(), bob, "k1");
  ASSERT_TRUE(bobs.ok()) << bobs.status();
  absl::StatusOr<v1::Job> alices = SubmitWithKey(daemon.stub(), alice, "k1");
  ASSERT_TRUE(alices.ok()) << alices.status();
  EXPECT_NE(alices->id(), bobs->id());
  EXPECT_EQ(alices->spec().owner(), "alice");
  EXPECT_EQ(bobs->spec().owner(), "bob");
  // Each one's retry finds their own job.
  absl::StatusOr<v1::Job> alices_retry = SubmitWithKey(daemon.stub(), alice, "k1");
  ASSERT_TRUE(alices_retry.ok()) << alices_retry.status();
  EXPECT_EQ(alices_retry->id(), alices->id());
  absl::StatusOr<v1::Job> bobs_retry = SubmitWithKey(daemon.stub(), bob, "k1");
  ASSERT_TRUE(bobs_retry.ok()) << bobs_retry.status();
  EXPECT_EQ(bobs_retry->id(), bobs->id());
}

}  // namespace
}  // namespace kbench::testing
