// kbctl's entry point as a library call, so that tests run the whole command line in-process
// against a fake or real kbenchd.
#pragma once

#include <string>
#include <vector>

#include "client/session.h"

namespace kbench::client {

// The server used when neither --server nor KBENCH_SERVER is given.
inline constexpr char kDefaultServer[] = "127.0.0.1:50051";

// Runs `kbctl args...` (args without the program name) and returns the exit code (ExitCode).
// Writes only to io.out and io.err; reads the environment through io.getenv.
int RunKbctl(const std::vector<std::string>& args, const Io& io);

}  // namespace kbench::client
