// kbctl completion bash|zsh|fish and kbctl man (issue 28, item 3), generated from the command
// tree: the bash script is sourced into a real bash and asked what it completes.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "client/kbctl.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct KbctlOutput {
  int code = 0;
  std::string out, err;
};

KbctlOutput RunOffline(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Io io;
  io.out = &out;
  io.err = &err;
  io.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  KbctlOutput r;
  r.code = RunKbctl(args, io);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A directory of its own under /tmp, removed with the object.
class CompletionDir {
 public:
  CompletionDir() {
    char tmpl[] = "/tmp/kbench_completion_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~CompletionDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ReadAll(FILE* pipe) {
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  return text;
}

class BashCompletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const KbctlOutput script = RunOffline({"completion", "bash"});
    ASSERT_EQ(script.code, 0) << script.err;
    std::ofstream(dir_.path() + "/kbctl.bash") << script.out;
  }

  // What bash completes for the command line `words` (the last word the one being completed),
  // run in the test's directory.
  std::string Complete(const std::string& words) {
    const std::string command =
        "cd '" + dir_.path() + "' && bash --norc --noprofile -c 'source ./kbctl.bash; " +
        "COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
        "_kbctl; printf \"%s\\n\" \"${COMPREPLY[@]}\"' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return "popen failed";
    std::string out = ReadAll(pipe);
    pclose(pipe);
    return out;
  }

  CompletionDir dir_;
};

TEST_F(BashCompletionTest, CompletesCommandsSubcommandsFlagsAndValues) {
  EXPECT_EQ(Complete("kbctl leader"), "leaderboard\n");
  const std::string config = Complete("kbctl config \"\"");
  EXPECT_THAT(config, HasSubstr("use-context\n"));
  EXPECT_THAT(config, HasSubstr("get-contexts\n"));
  EXPECT_THAT(Complete("kbctl leaderboard softmax --b"), HasSubstr("--by\n"));
  // Global flags complete on every command, and -o offers the formats.
  EXPECT_THAT(Complete("kbctl bench softmax --ser"), HasSubstr("--server\n"));
  EXPECT_EQ(Complete("kbctl get j-1 -o \"\""), "table\nwide\njson\n");
  // The path is followed past a flag and its value: `sweep get` is not `artifacts get`.
  EXPECT_THAT(Complete("kbctl --server localhost:1 sweep get s-1 --d"), HasSubstr("--dir\n"));
  EXPECT_THAT(Complete("kbctl artifacts get j-1 --"), Not(HasSubstr("--dir")));
}

TEST_F(BashCompletionTest, AFileFlagCompletesFromTheFileSystem) {
  std::ofstream(dir_.path() + "/report-out.html") << "x";
  EXPECT_EQ(Complete("kbctl report s-1 --file report-"), "report-out.html\n");
  EXPECT_EQ(Complete("kbctl report s-1 -f report-"), "report-out.html\n");
}

TEST(CompletionScripts, FishTellsNestedCommandsApartAndZshLoadsTheBashFunction) {
  const KbctlOutput fish = RunOffline({"completion", "fish"});
  ASSERT_EQ(fish.code, 0) << fish.err;
  EXPECT_THAT(fish.out, HasSubstr("complete -c kbctl -n '__fish_seen_subcommand_from sweep; and "
                                  "__fish_seen_subcommand_from get' -l dir -s d -r -F"));
  EXPECT_THAT(fish.out, HasSubstr("complete -c kbctl -n '__fish_use_subcommand' -a 'bench'"));
  const KbctlOutput zsh = RunOffline({"completion", "zsh"});
  ASSERT_EQ(zsh.code, 0) << zsh.err;
  EXPECT_THAT(zsh.out, HasSubstr("#compdef kbctl\n"));
  EXPECT_THAT(zsh.out, HasSubstr("bashcompinit"));
  EXPECT_THAT(zsh.out, HasSubstr("complete -o default -F _kbctl kbctl"));
  const KbctlOutput tcsh = RunOffline({"completion", "tcsh"});
  EXPECT_EQ(tcsh.code, 2);
  EXPECT_THAT(tcsh.err, HasSubstr("unknown shell \"tcsh\"; expected bash, zsh or fish"));
}

// The man page lists every command with its options, and man(1)'s formatter reads it without a
// warning where groff is installed.
TEST(ManPage, ListsEveryCommandWithItsOptionsAndFormatsCleanly) {
  const KbctlOutput man = RunOffline({"man"});
  ASSERT_EQ(man.code, 0) << man.err;
  EXPECT_THAT(man.out, HasSubstr(".TH KBCTL 1"));
  for (const char* command :
       {"kbctl bench", "kbctl config view", "kbctl sweep get", "kbctl artifacts get",
        "kbctl leaderboard", "kbctl completion", "kbctl repro", "kbctl bisect"}) {
    std::string roff = std::string(".SS \\fB") + command;
    for (size_t at = roff.find('-'); at != std::string::npos; at = roff.find('-', at + 2)) {
      roff.insert(at, "\\");
    }
    EXPECT_THAT(man.out, HasSubstr(roff)) << command;
  }
  EXPECT_THAT(man.out, HasSubstr("\\fB\\-\\-by\\fR \\fItime|energy\\fR"));
  if (access("/usr/bin/groff", X_OK) != 0) return;  // the roff itself is checked above
  CompletionDir dir;
  std::ofstream(dir.path() + "/kbctl.1") << man.out;
  FILE* pipe = popen(("groff -man -Tutf8 -ww -z '" + dir.path() + "/kbctl.1' 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  const std::string warnings = ReadAll(pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(warnings, "");
}

}  // namespace
}  // namespace kbench::client
