// kbench-executor: the data plane of one device, started and supervised by kbenchd (one process
// per device, a socketpair on --fd). It is also what `--discover` runs to list the CUDA
// devices, and the program Nsight Compute re-runs for a profile job (--ncu-target).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "server/common/logging.h"
#include "server/executor/backend.h"
#include "server/executor/executor_loop.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "kbench-executor: %s\n", message.c_str());
  return 1;
}

}  // namespace

static int Main(int argc, char** argv) {
  // Nsight Compute re-runs this program to profile one variant's kernel (profile jobs).
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--ncu-target") return kbench::executor::RunNcuTarget(argc, argv);
  }
  // A user kernel's compile runs in a child process killed at its deadline (compile jobs and
  // user variants).
  if (argc > 1 && std::string(argv[1]) == "--compile-user-kernel") {
    return kbench::executor::RunCompileUserKernelChild(argc, argv);
  }
  std::string device;
  int fd = -1;
  bool discover = false;
  std::string log_format = "text";
  std::string log_level = "info";
  std::vector<std::string> idle_gates;
  kbench::executor::CompileSandboxOptions sandbox;
  uint64_t compile_memory_mib = sandbox.memory_bytes >> 20;
  CLI::App app{
      "kbench-executor: runs one device's jobs for kbenchd (started by kbenchd, not by hand)"};
  app.add_option("--device", device, "cpu or cuda:N");
  app.add_flag("--discover", discover, "Report the CUDA devices on --fd and exit");
  app.add_option("--fd", fd, "The socketpair to kbenchd (length-delimited protobuf)")->required();
  app.add_option("--log-format", log_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", log_level, "trace, debug, info, warn or error");
  app.add_option("--idle-gate", idle_gates, "kbenchd's --idle-gate values (DEVICE=TIMEOUT_S[,C])");
  app.add_option("--compile-memory-limit-mib", compile_memory_mib,
                 "Address space of a compile child (RLIMIT_AS), MiB")
      ->check(CLI::Range(1024, 1 << 20));
  app.add_option("--compile-cpu-seconds", sandbox.cpu_seconds,
                 "CPU time of a compile child (RLIMIT_CPU), seconds")
      ->check(CLI::Range(1, 3600));
  app.add_option("--compile-lock", sandbox.lock_path,
                 "The file every executor of the host flocks around a compile (one at a time)");
  kbench::executor::CollectiveOptions collectives;
  app.add_flag("--allow-nvls", collectives.allow_nvls,
               "Let NCCL use NVLink multicast (NVLS) in multi-GPU jobs (off: NCCL_NVLS_ENABLE=0)");
  CLI11_PARSE(app, argc, argv);
  if (absl::Status s = kbench::logging::InitLogging(log_format, log_level); !s.ok()) {
    return Fail(s.ToString());
  }
  sandbox.memory_bytes = compile_memory_mib << 20;
  kbench::executor::ConfigureCompileSandbox(sandbox);
  kbench::executor::ConfigureCollectives(collectives);
  if (discover) return kbench::executor::RunDiscovery(fd);
  if (device.empty()) return Fail("--device or --discover is required");
  return kbench::executor::RunExecutorLoop(device, fd, idle_gates);
}

// A library exception that escapes (std::bad_alloc, CLI11 outside its parse) ends the program
// with a line saying why instead of std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench-executor: %s\n", e.what());
    return 1;
  }
}
