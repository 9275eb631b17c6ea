// Child processes for ncu: exit codes, output capture, time limit, cancellation.
#include "server/executor/profile/subprocess.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "gtest/gtest.h"

namespace kbench::executor::profile {
namespace {

std::string TempFile() {
  char tmpl[] = "/tmp/kbench_subprocess_XXXXXX";
  const int fd = mkstemp(tmpl);
  close(fd);
  return tmpl;
}

TEST(RunProcess, CapturesOutputAndExitCode) {
  const std::string out = TempFile(), err = TempFile();
  absl::StatusOr<ProcessResult> r = RunProcess(
      {"/bin/sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"}, out, err, 10, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->Describe(10), "exit code 3");
  EXPECT_EQ(FileTail(out, 100), "to-stdout\n");
  EXPECT_EQ(FileTail(err, 100), "to-stderr\n");
  unlink(out.c_str());
  unlink(err.c_str());
}

TEST(RunProcess, SucceedsForACleanExit) {
  const std::string out = TempFile();
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/true"}, out, out, 10, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->ok());
  unlink(out.c_str());
}

TEST(RunProcess, KillsTheProcessGroupAtTheTimeLimit) {
  const std::string out = TempFile();
  const auto start = std::chrono::steady_clock::now();
  // The shell's child (sleep) is in the same group and must die with it.
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/bin/sh", "-c", "sleep 30; echo survived"}, out, out, 0.3, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->ok());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(FileTail(out, 100), "");
  unlink(out.c_str());
}

TEST(RunProcess, StopsWhenCancelled) {
  const std::string out = TempFile();
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancelled = true;
  });
  absl::StatusOr<ProcessResult> r = RunProcess({"/bin/sleep", "30"}, out, out, 60, &cancelled);
  canceller.join();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->cancelled);
  EXPECT_EQ(r->Describe(60), "cancelled");
  unlink(out.c_str());
}

TEST(RunProcess, ReportsAnExecutableThatCannotStart) {
  const std::string out = TempFile();
  absl::StatusOr<ProcessResult> r = RunProcess({"/nonexistent/ncu"}, out, out, 10, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 127);
  EXPECT_NE(FileTail(out, 100).find("exec failed"), std::string::npos);
  unlink(out.c_str());
}

TEST(RunProcess, DoesNotLeakDescriptorsToTheChild) {
  const std::string out = TempFile();
  // fd 3+ would be open here (gtest, this process's files); the child sees only 0-2 (and the
  // one ls opens itself).
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/bin/sh", "-c", "ls /proc/self/fd | wc -l"}, out, out, 10, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  // 0, 1, 2 and the directory ls reads.
  EXPECT_EQ(std::atoi(FileTail(out, 100).c_str()), 4);
  unlink(out.c_str());
}

// Issue 24: a tool child sees none of the executor's environment, only the named list.
TEST(RunProcess, AToolChildSeesNoParentVariable) {
  const std::string out = TempFile();
  setenv("KBENCH_TEST_PARENT_MARKER", "parent-secret", 1);
  absl::StatusOr<ProcessResult> r = RunProcess({"/usr/bin/env"}, out, out, 10, nullptr);
  unsetenv("KBENCH_TEST_PARENT_MARKER");
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string env = FileTail(out, 100000);
  EXPECT_EQ(env.find("parent-secret"), std::string::npos) << env;
  EXPECT_NE(env.find("PATH=/usr/local/cuda/bin:/usr/bin:/bin\n"), std::string::npos) << env;
  EXPECT_NE(env.find("HOME=/tmp\n"), std::string::npos) << env;  // the output file's directory
  unlink(out.c_str());
}

// Issue 24: a child that meets its CPU-time limit is reported as such, not as a crash.
TEST(RunProcess, AChildBeyondItsCpuLimitReportsTheLimit) {
  const std::string out = TempFile();
  ChildSetup setup = ToolChildSetup("/tmp", 10);
  setup.limits.cpu_seconds = 1;
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/bin/sh", "-c", "while :; do :; done"}, out, out, 20, nullptr, setup);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exceeded_limit, "its 1 s CPU-time limit");
  EXPECT_EQ(r->Describe(20), "exceeded its 1 s CPU-time limit");
  unlink(out.c_str());
}

}  // namespace
}  // namespace kbench::executor::profile
