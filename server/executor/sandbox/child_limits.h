// Resource limits (setrlimit) for the executor's children (issue 24, item 1): a compile child,
// a disassembler, Nsight Compute, compute-sanitizer. Each child gets a memory, CPU-time,
// file-size and open-file limit; a child that ran into one is told apart from a crash so that
// the job fails RESOURCE_EXHAUSTED naming the limit.
//
// There is no process limit here on purpose: RLIMIT_NPROC counts every process and thread of
// the uid (kbenchd's and every executor's threads included), so a value small enough to stop a
// fork bomb breaks a busy host. The process count is bounded per service instead, by systemd's
// TasksMax= and the pod's pids limit (deploy/).
#pragma once

#include <cstdint>
#include <string>

namespace kbench::executor::sandbox {

struct ChildLimits {
  uint64_t address_space_bytes = 0;  // RLIMIT_AS; 0: unlimited
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU (SIGXCPU, then SIGKILL 2 s later); 0: none
  uint64_t file_bytes = 0;           // RLIMIT_FSIZE (SIGXFSZ); 0: unlimited
  uint64_t open_files = 0;           // RLIMIT_NOFILE; 0: inherited
};

// The exit code of a compile child whose allocation failed (its new-handler's).
inline constexpr int kOutOfMemoryExit = 86;

// A compile child: `memory_bytes` of address space (NVRTC compiles the catalogue's kernels in
// under 300 MiB of it), `cpu_seconds`, 256 MiB of file (the reply holds the PTX and cubin),
// 256 descriptors.
ChildLimits CompileLimits(uint64_t memory_bytes, uint64_t cpu_seconds);
// nvdisasm, cuobjdump, ncu --import: tools reading one file: 4 GiB, 1 GiB of file.
ChildLimits ToolLimits(double timeout_seconds);
// ncu and compute-sanitizer running a CUDA target: no address-space limit (a CUDA context
// reserves address space for all of the GPU's and the host's memory, far beyond what it uses;
// their memory is bounded by the service's cgroup, MemoryMax=), 8 GiB of report, 4096
// descriptors.
ChildLimits CudaToolLimits(double timeout_seconds);

// Applies `limits` to the calling process. Async-signal-safe (only setrlimit): called between
// fork and exec. False when one could not be set.
bool ApplyChildLimits(const ChildLimits& limits);

// The limit a child that ended with `exit_code` or `signal` (0 when none) ran into, in words
// ("its 4096 MiB memory limit"); empty when its end shows none.
std::string ExceededLimit(const ChildLimits& limits, int exit_code, int signal);

}  // namespace kbench::executor::sandbox
