// The executor process's main loop: bring the device up, announce it, then run jobs one at a
// time as the control plane sends them over `fd`, until Shutdown or end of stream.
#pragma once

#include <string>
#include <vector>

namespace kbench::executor {

// Runs the executor of `device` ("cpu" or "cuda:N") on `fd`. Returns the process's exit code:
// 0 after Shutdown or end of stream, 2 when the device cannot start, 4 when the device needs a
// fresh process (sticky CUDA error).
// `idle_gates`: kbenchd's --idle-gate values; the one for `device` applies.
int RunExecutorLoop(const std::string& device, int fd, const std::vector<std::string>& idle_gates);

// Writes the CUDA devices this process sees (none without a driver or a CUDA build) to `fd` as
// one ExecutorMessage and returns the exit code.
int RunDiscovery(int fd);

}  // namespace kbench::executor
