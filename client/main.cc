// kbctl: the command-line client of kbenchd (see `kbctl --help`).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "client/kbctl.h"

int main(int argc, char** argv) {
  kbench::client::Io io;
  io.out = &std::cout;
  io.err = &std::cerr;
  io.err_is_tty = isatty(STDERR_FILENO) == 1;
  winsize size{};
  if (io.err_is_tty && ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0) io.err_columns = size.ws_col;
  io.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
  io.now = [] { return absl::Now(); };
  return kbench::client::RunKbctl({argv + 1, argv + argc}, io);
}
