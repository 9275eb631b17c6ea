// kbctl: the command-line client of kbenchd (see `kbctl --help`).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "client/kbctl.h"

static int Main(int argc, char** argv) {
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

// A library exception that escapes (std::bad_alloc, CLI11 outside its parse) ends the program
// with a line saying why instead of std::terminate's abort.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbctl: %s\n", e.what());
    return 1;
  }
}
