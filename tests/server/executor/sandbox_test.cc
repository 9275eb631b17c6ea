// The executor's child sandbox (issue 24, item 1): resource limits and how a child's end is
// read, Landlock as the running kernel has it (each test asserts what this machine does, with
// or without Landlock), and the host's compile lock across two holders.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "server/executor/sandbox/child_limits.h"
#include "server/executor/sandbox/compile_lock.h"
#include "server/executor/sandbox/landlock.h"

namespace kbench::executor::sandbox {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/kbench_sandbox_XXXXXX";
  return mkdtemp(tmpl);
}

void WriteFile(const std::string& path, const std::string& bytes) { std::ofstream(path) << bytes; }

// Runs `body` in a forked child; its exit code (or 128 + the signal).
template <typename F>
int InChild(F body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// 0: opened; 1: EACCES; 2: another error.
int TryOpen(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno == EACCES ? 1 : 2;
}

TEST(ChildLimits, AppliedLimitsAreTheProcesssOwn) {
  const ChildLimits limits = CompileLimits(uint64_t{2} << 30, 7);
  EXPECT_EQ(InChild([&] {
              if (!ApplyChildLimits(limits)) return 10;
              rlimit as{}, cpu{}, fsize{}, nofile{};
              getrlimit(RLIMIT_AS, &as);
              getrlimit(RLIMIT_CPU, &cpu);
              getrlimit(RLIMIT_FSIZE, &fsize);
              getrlimit(RLIMIT_NOFILE, &nofile);
              return as.rlim_cur == (rlim_t{2} << 30) && cpu.rlim_cur == 7 && cpu.rlim_max == 9 &&
                             fsize.rlim_cur == limits.file_bytes && nofile.rlim_cur == 256
                         ? 0
                         : 11;
            }),
            0);
}

TEST(ChildLimits, AnAllocationBeyondTheAddressSpaceFails) {
  EXPECT_EQ(InChild([] {
              if (!ApplyChildLimits(CompileLimits(uint64_t{256} << 20, 10))) return 10;
              void* p = std::malloc(size_t{512} << 20);
              return p == nullptr ? 0 : 11;
            }),
            0);
}

TEST(ChildLimits, AFileBeyondItsLimitEndsTheChildWithSigxfsz) {
  const std::string dir = TempDir();
  ChildLimits limits;
  limits.file_bytes = 4096;
  const int end = InChild([&] {
    ApplyChildLimits(limits);
    std::string block(8192, 'x');
    const int fd = open((dir + "/big").c_str(), O_WRONLY | O_CREAT, 0600);
    (void)!write(fd, block.data(), block.size());
    (void)!write(fd, block.data(), block.size());
    return 0;
  });
  EXPECT_EQ(end, 128 + SIGXFSZ);
  EXPECT_EQ(ExceededLimit(limits, -1, SIGXFSZ), "its 0 MiB file-size limit");
}

TEST(ChildLimits, EndsAreReadAsTheLimitTheyShow) {
  const ChildLimits limits = CompileLimits(uint64_t{4} << 30, 60);
  EXPECT_EQ(ExceededLimit(limits, -1, SIGXCPU), "its 60 s CPU-time limit");
  EXPECT_EQ(ExceededLimit(limits, kOutOfMemoryExit, 0), "its 4096 MiB memory limit");
  EXPECT_NE(ExceededLimit(limits, -1, SIGKILL).find("memory"), std::string::npos);
  EXPECT_EQ(ExceededLimit(limits, 1, 0), "");
  EXPECT_EQ(ExceededLimit(limits, -1, SIGSEGV), "");
}

// With Landlock, a file outside the policy cannot be opened and one inside can; without it,
// both open (the caller goes on unconfined, RestrictFilesystem says so).
TEST(Landlock, OnlyThePolicysDirectoriesCanBeOpened) {
  const std::string inside = TempDir(), outside = TempDir();
  WriteFile(inside + "/ok.txt", "ok");
  WriteFile(outside + "/secret.txt", "secret");
  const bool landlock = LandlockAbi() > 0;
  const int result = InChild([&] {
    absl::StatusOr<bool> r = RestrictFilesystem({{}, {inside}});
    if (!r.ok()) return 20;
    if (*r != landlock) return 21;
    const int read_inside = TryOpen(inside + "/ok.txt", O_RDONLY);
    const int write_inside = TryOpen(inside + "/new.txt", O_WRONLY | O_CREAT);
    const int read_outside = TryOpen(outside + "/secret.txt", O_RDONLY);
    const int proc_environ = TryOpen("/proc/self/environ", O_RDONLY);
    return read_inside * 1 + write_inside * 3 + read_outside * 9 + proc_environ * 27;
  });
  EXPECT_EQ(result, landlock ? 9 + 27 : 0) << "Landlock ABI " << LandlockAbi();
}

TEST(Landlock, ReadOnlyPathsCannotBeWritten) {
  const std::string dir = TempDir();
  WriteFile(dir + "/f.txt", "x");
  const bool landlock = LandlockAbi() > 0;
  const int result = InChild([&] {
    if (!RestrictFilesystem({{dir}, {}}).ok()) return 20;
    return TryOpen(dir + "/f.txt", O_RDONLY) + 3 * TryOpen(dir + "/f.txt", O_WRONLY);
  });
  EXPECT_EQ(result, landlock ? 3 : 0);
}

TEST(CompileLock, ASecondHolderWaitsUntilTheFirstReleases) {
  const std::string path = TempDir() + "/compile.lock";
  std::atomic<bool> second_has_it{false};
  std::optional<absl::StatusOr<CompileLock>> first(CompileLock::Acquire(path, nullptr));
  ASSERT_TRUE(first->ok()) << first->status();
  std::thread second([&] {
    absl::StatusOr<CompileLock> lock = CompileLock::Acquire(path, nullptr);
    second_has_it = lock.ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(second_has_it.load());
  first.reset();
  second.join();
  EXPECT_TRUE(second_has_it.load());
}

TEST(CompileLock, AWaiterIsCancelled) {
  const std::string path = TempDir() + "/compile.lock";
  absl::StatusOr<CompileLock> first = CompileLock::Acquire(path, nullptr);
  ASSERT_TRUE(first.ok());
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancelled = true;
  });
  const absl::StatusOr<CompileLock> second = CompileLock::Acquire(path, &cancelled);
  canceller.join();
  EXPECT_EQ(second.status().code(), absl::StatusCode::kCancelled);
}

TEST(CompileLock, AnotherProcessHoldingItMakesUsWait) {
  const std::string path = TempDir() + "/compile.lock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    absl::StatusOr<CompileLock> lock = CompileLock::Acquire(path, nullptr);
    (void)!write(ready[1], "x", 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    _exit(lock.ok() ? 0 : 1);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CompileLock> lock = CompileLock::Acquire(path, nullptr);
  EXPECT_TRUE(lock.ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
  int status = 0;
  waitpid(holder, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(CompileLock, NoPathTakesNoLock) { EXPECT_TRUE(CompileLock::Acquire("", nullptr).ok()); }

}  // namespace
}  // namespace kbench::executor::sandbox
