// Session: lazy connection, JSON printing and notes.
#include "client/session.h"

#include "client/format/json.h"
#include "common/status_macros.h"

namespace kbench::client {

Connection& Session::connection() {
  if (connection_ == nullptr) {
    connection_ =
        std::make_unique<Connection>(options_.server, options_.timeout, options_.security);
  }
  return *connection_;
}

absl::Status Session::PrintJson(const google::protobuf::Message& message) const {
  KBENCH_ASSIGN_OR_RETURN(std::string json, ToJson(message));
  out() << json;
  return absl::OkStatus();
}

void Session::Note(const std::string& line) const {
  if (!json()) err() << line << "\n";
}

}  // namespace kbench::client
