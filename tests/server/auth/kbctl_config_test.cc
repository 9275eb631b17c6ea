// kbctl's contexts: set/use/get/current-context, which context, env variable or flag wins, the
// token never printed, and the warning for a config file others can read.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "client/config/resolve.h"
#include "client/kbctl.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "kbt_s3cret";

ConnectionFlags Flags(std::string server, std::string token, std::string context, bool tls) {
  ConnectionFlags flags;
  flags.server = std::move(server);
  flags.token = std::move(token);
  flags.context = std::move(context);
  flags.tls = tls;
  return flags;
}

class KbctlConfigTest : public ::testing::Test {
 protected:
  KbctlConfigTest() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kbctl-config-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    env_["KBENCH_CONFIG"] = dir_ + "/config.yaml";
  }
  ~KbctlConfigTest() override { std::filesystem::remove_all(dir_); }

  Io MakeIo() {
    Io io;
    io.out = &out_;
    io.err = &err_;
    io.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
    return io;
  }
  int Kbctl(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    return RunKbctl(args, MakeIo());
  }
  absl::StatusOr<ResolvedConnection> Resolve(const ConnectionFlags& flags = {}) {
    err_.str("");
    return ResolveConnection(flags, MakeIo(), "127.0.0.1:50051");
  }

  std::string dir_;
  std::map<std::string, std::string> env_;
  std::ostringstream out_, err_;
};

TEST_F(KbctlConfigTest, SetUseAndListContextsWithoutPrintingTokens) {
  ASSERT_EQ(Kbctl({"config", "set-context", "lab", "--server", "gpu1:50051", "--token", kSecret,
                   "--tls"}),
            0)
      << err_.str();
  ASSERT_EQ(Kbctl({"config", "set-context", "home", "--server", "127.0.0.1:7"}), 0);
  ASSERT_EQ(Kbctl({"config", "current-context"}), 0);
  EXPECT_EQ(out_.str(), "lab\n");  // the first context becomes current
  ASSERT_EQ(Kbctl({"config", "use-context", "home"}), 0);
  ASSERT_EQ(Kbctl({"config", "current-context"}), 0);
  EXPECT_EQ(out_.str(), "home\n");
  ASSERT_EQ(Kbctl({"config", "get-contexts"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("gpu1:50051"));
  EXPECT_THAT(out_.str(), HasSubstr("*        home"));
  EXPECT_THAT(out_.str() + err_.str(), Not(HasSubstr(kSecret)));
  EXPECT_EQ(Kbctl({"config", "use-context", "nowhere"}), 2);
  struct stat st {};
  ASSERT_EQ(stat(env_["KBENCH_CONFIG"].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(KbctlConfigTest, DeletesAndRenamesContextsAndViewsTheFileWithoutTokens) {
  ASSERT_EQ(Kbctl({"config", "set-context", "lab", "--server", "gpu1:50051", "--token", kSecret}),
            0);
  ASSERT_EQ(Kbctl({"config", "set-context", "home", "--server", "127.0.0.1:7"}), 0);
  ASSERT_EQ(Kbctl({"config", "rename-context", "lab", "gpu-lab"}), 0) << err_.str();
  ASSERT_EQ(Kbctl({"config", "current-context"}), 0);
  EXPECT_EQ(out_.str(), "gpu-lab\n");  // the current context follows its rename
  EXPECT_EQ(Kbctl({"config", "rename-context", "gpu-lab", "home"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("a context \"home\" already exists"));
  EXPECT_EQ(Kbctl({"config", "delete-context", "nowhere"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("no context \"nowhere\""));

  ASSERT_EQ(Kbctl({"config", "view"}), 0);
  EXPECT_THAT(out_.str(),
              HasSubstr("  - name: gpu-lab\n    server: gpu1:50051\n    token: REDACTED"));
  EXPECT_THAT(out_.str(), Not(HasSubstr(kSecret)));
  ASSERT_EQ(Kbctl({"-o", "json", "config", "view"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("\"current_context\": \"gpu-lab\""));
  EXPECT_THAT(out_.str(), HasSubstr("\"credentials\": \"token\""));
  EXPECT_THAT(out_.str(), Not(HasSubstr(kSecret)));

  ASSERT_EQ(Kbctl({"-o", "json", "config", "delete-context", "gpu-lab"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("\"action\": \"delete\""));
  EXPECT_THAT(out_.str(), HasSubstr("\"current_context\": \"\""));  // no longer current
  ASSERT_EQ(Kbctl({"-o", "json", "config", "get-contexts"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("\"name\": \"home\""));
  EXPECT_THAT(out_.str(), Not(HasSubstr("gpu-lab")));
  EXPECT_EQ(Kbctl({"config", "current-context"}), 2);
}

TEST_F(KbctlConfigTest, TheCurrentContextThenEnvThenFlagsDecide) {
  ASSERT_EQ(Kbctl({"config", "set-context", "lab", "--server", "gpu1:50051", "--token", kSecret,
                   "--tls"}),
            0);
  ASSERT_EQ(Kbctl({"config", "set-context", "local", "--server", "127.0.0.1:9"}), 0);
  absl::StatusOr<ResolvedConnection> lab = Resolve();
  ASSERT_TRUE(lab.ok()) << lab.status();
  EXPECT_EQ(lab->server, "gpu1:50051");
  EXPECT_EQ(lab->security.token, kSecret);
  EXPECT_TRUE(lab->security.tls);

  ASSERT_EQ(Kbctl({"config", "use-context", "local"}), 0);
  absl::StatusOr<ResolvedConnection> local = Resolve();
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->server, "127.0.0.1:9");
  EXPECT_EQ(local->security.token, "");

  env_["KBENCH_SERVER"] = "127.0.0.1:11";
  env_["KBENCH_TOKEN"] = "from-env";
  absl::StatusOr<ResolvedConnection> env = Resolve(Flags("", "", "lab", false));
  ASSERT_TRUE(env.ok()) << env.status();
  EXPECT_EQ(env->server, "127.0.0.1:11");
  EXPECT_EQ(env->security.token, "from-env");
  absl::StatusOr<ResolvedConnection> flags = Resolve(Flags("127.0.0.1:12", "from-flag", "", false));
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ(flags->server, "127.0.0.1:12");
  EXPECT_EQ(flags->security.token, "from-flag");
  EXPECT_FALSE(Resolve(Flags("", "", "missing", false)).ok());
}

TEST_F(KbctlConfigTest, ReadsTokenFilesAndRefusesPlaintextTokensToTheNetwork) {
  const std::string token_file = dir_ + "/lab.token";
  std::ofstream(token_file) << "kbt_fromfile\n";
  chmod(token_file.c_str(), 0600);
  ASSERT_EQ(
      Kbctl({"config", "set-context", "lab", "--server", "gpu1:50051", "--token-file", token_file}),
      0);
  absl::StatusOr<ResolvedConnection> plain = Resolve();
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(std::string(plain.status().message()), HasSubstr("plaintext to gpu1:50051"));
  absl::StatusOr<ResolvedConnection> tls = Resolve(Flags("", "", "", true));
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_EQ(tls->security.token, "kbt_fromfile");
}

TEST_F(KbctlConfigTest, WarnsWhenAConfigHoldingATokenIsReadableByOthers) {
  ASSERT_EQ(Kbctl({"config", "set-context", "lab", "--server", "127.0.0.1:1", "--token", kSecret}),
            0);
  ASSERT_TRUE(Resolve().ok());
  EXPECT_EQ(err_.str(), "");
  chmod(env_["KBENCH_CONFIG"].c_str(), 0644);
  ASSERT_TRUE(Resolve().ok());
  EXPECT_THAT(err_.str(), HasSubstr("holds a token and is readable by others (mode 644)"));
  EXPECT_THAT(err_.str(), Not(HasSubstr(kSecret)));
}

// Issue 24: a host is loopback by its address (inet_pton), never by its spelling: a DNS name
// that starts with "127." resolves wherever its owner wants, and a token would follow it in
// plaintext.
TEST(IsLoopbackServer, RecognisesLoopbackAddressesNotNamesThatLookLikeThem) {
  for (const char* server :
       {"127.0.0.1:50051", "127.5.6.7:1", "127.255.255.255:9", "[::1]:50051", "localhost:50051",
        "localhost", "127.0.0.1", "::1", "dns:///localhost:50051", "ipv4:127.0.0.1:50051"}) {
    EXPECT_TRUE(IsLoopbackServer(server)) << server;
  }
  for (const char* server :
       {"127.attacker.example:50051", "127.0.0.1.attacker.example:50051",
        "localhost.attacker.example:50051", "LOCALHOST.example:1", "[::2]:50051",
        "[::ffff:10.0.0.1]:50051", "128.0.0.1:50051", "gpu1:50051", "[127.0.0.1:50051", "",
        "0.0.0.0:50051", "dns:///127.attacker.example:50051"}) {
    EXPECT_FALSE(IsLoopbackServer(server)) << server;
  }
}

TEST_F(KbctlConfigTest, RefusesAPlaintextTokenToANameThatOnlyLooksLoopback) {
  absl::StatusOr<ResolvedConnection> spoofed =
      Resolve(Flags("127.attacker.example:50051", kSecret, "", false));
  ASSERT_FALSE(spoofed.ok());
  EXPECT_THAT(std::string(spoofed.status().message()), HasSubstr("plaintext"));
  absl::StatusOr<ResolvedConnection> local = Resolve(Flags("127.5.6.7:50051", kSecret, "", false));
  EXPECT_TRUE(local.ok()) << local.status();
}

// Issue 24: without a configured server, kbctl reaches kbenchd's Unix socket when there is one,
// and a token may go there in plaintext (it never leaves the host).
TEST_F(KbctlConfigTest, DefaultsToKbenchdsUnixSocketWhenThereIsOne) {
  env_["XDG_RUNTIME_DIR"] = dir_;
  absl::StatusOr<ResolvedConnection> tcp = Resolve();
  ASSERT_TRUE(tcp.ok()) << tcp.status();
  EXPECT_EQ(tcp->server, "127.0.0.1:50051") << "no socket there yet";

  const std::string socket = dir_ + "/kbenchd.sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
  absl::StatusOr<ResolvedConnection> unix_socket = Resolve(Flags("", kSecret, "", false));
  close(fd);
  ASSERT_TRUE(unix_socket.ok()) << unix_socket.status();
  EXPECT_EQ(unix_socket->server, "unix:" + socket);
  EXPECT_TRUE(IsLoopbackServer("unix:" + socket));
}

}  // namespace
}  // namespace kbench::client
