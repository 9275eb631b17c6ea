// Starting an executor (issue 24, item 1 and the old dup2 bug): the socket reaches the child as
// fd 3 also when it already was fd 3, and the child's environment holds none of kbenchd's.
#include "server/scheduler/executor_supervisor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace kbench::scheduler {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/kbench_supervisor_XXXXXX";
  return mkdtemp(tmpl);
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Whether descriptor `target` survives an exec after InheritAt(fd, target), as /bin/sh sees.
bool SurvivesExec(int fd, int target) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (!InheritAt(fd, target)) _exit(2);
    const std::string test = "test -e /proc/self/fd/" + std::to_string(target);
    execl("/bin/sh", "sh", "-c", test.c_str(), static_cast<char*>(nullptr));
    _exit(3);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(InheritAt, ClearsCloseOnExecWhenTheDescriptorAlreadyIsTheTarget) {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const int target = 40;
  ASSERT_EQ(dup3(fd, target, O_CLOEXEC), target);  // already `target`, close-on-exec set
  EXPECT_TRUE(SurvivesExec(target, target));
  close(target);
  close(fd);
}

TEST(InheritAt, CopiesAnotherDescriptorWithoutCloseOnExec) {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(SurvivesExec(fd, 41));
  close(fd);
}

// A stand-in executor that writes its environment to a file and exits (discovery then fails,
// which is not what is tested here).
TEST(ExecutorSupervisor, AnExecutorSeesNoneOfKbenchdsEnvironment) {
  const std::string dir = TempDir();
  const std::string script = dir + "/executor.sh";
  std::ofstream(script) << "#!/bin/sh\nenv > " << dir << "/env.txt\nexit 1\n";
  chmod(script.c_str(), 0700);
  setenv("PGPASSWORD", "parent-secret", 1);
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  (void)ExecutorSupervisor::Discover(script, {}, std::chrono::seconds(10));
  unsetenv("PGPASSWORD");
  unsetenv("CUDA_VISIBLE_DEVICES");
  const std::string env = ReadFile(dir + "/env.txt");
  EXPECT_EQ(env.find("parent-secret"), std::string::npos) << env;
  EXPECT_NE(env.find("CUDA_VISIBLE_DEVICES=0"), std::string::npos) << env;
}

}  // namespace
}  // namespace kbench::scheduler
