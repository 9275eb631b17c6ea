// The executor process's main loop: bring the device up, announce it, then run jobs one at a
// time as the control plane sends them over `fd`, until Shutdown or end of stream.
#pragma once

#include <string>

namespace kbench::executor {

// `device` is "cpu", "cuda:N", or "discover" (report the CUDA devices and exit).
// Returns the process exit code.
int RunExecutorProcess(const std::string& device, int fd);

}  // namespace kbench::executor
