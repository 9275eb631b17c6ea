// kbctl's whole command line run in-process, as the client tests drive it: its exit code and
// what it wrote on stdout and stderr, with a fixed environment and clock, and no waits.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "client/kbctl.h"

namespace kbench::client {

struct Result {
  int code;
  std::string out;
  std::string err;
};

inline Result Kbctl(const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env = {{"USER", "tester"}},
                    bool tty = false) {
  std::ostringstream out, err;
  Io io;
  io.out = &out;
  io.err = &err;
  io.err_is_tty = tty;
  io.getenv = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  io.now = [] { return absl::FromUnixSeconds(1'700'000'060); };
  io.sleep = [](absl::Duration) {};  // retries go at once
  const int code = RunKbctl(args, io);
  return {code, out.str(), err.str()};
}

}  // namespace kbench::client
