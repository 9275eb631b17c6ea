// What every kbctl subcommand works with: the global flags, the process's streams and
// environment (injected, so that tests drive kbctl in-process), and the connection to kbenchd.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/connection.h"
#include "google/protobuf/message.h"

namespace kbench::client {

// The process around kbctl.
struct Io {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  // Progress is a single redrawn line on a terminal and plain lines otherwise.
  bool err_is_tty = false;
  // Width of that terminal (0: unknown); a longer progress line would wrap and not redraw.
  int err_columns = 0;
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::function<absl::Time()> now;
  // Waits between retries (absl::SleepFor when unset).
  std::function<void(absl::Duration)> sleep;
};

enum class OutputFormat { kTable, kJson };

struct GlobalOptions {
  std::string server;
  OutputFormat output = OutputFormat::kTable;
  absl::Duration timeout = absl::Seconds(30);
  ConnectionSecurity security;
};

class Session {
 public:
  Session(GlobalOptions options, const Io& io) : options_(std::move(options)), io_(io) {}

  const GlobalOptions& options() const { return options_; }
  const Io& io() const { return io_; }
  std::ostream& out() const { return *io_.out; }
  std::ostream& err() const { return *io_.err; }
  bool json() const { return options_.output == OutputFormat::kJson; }
  absl::Time Now() const { return io_.now ? io_.now() : absl::Now(); }
  void Sleep(absl::Duration wait) const { io_.sleep ? io_.sleep(wait) : absl::SleepFor(wait); }
  std::optional<std::string> GetEnv(const std::string& name) const {
    return io_.getenv ? io_.getenv(name) : std::nullopt;
  }

  // Created on first use, so that usage errors never wait on the network.
  Connection& connection();

  // Writes the message as one JSON document on stdout.
  absl::Status PrintJson(const google::protobuf::Message& message) const;
  // Writes a note for people on stderr; silent with -o json, whose stderr scripts may log.
  void Note(const std::string& line) const;

 private:
  GlobalOptions options_;
  Io io_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace kbench::client
