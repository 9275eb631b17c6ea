// kbctl health [SERVICE]: grpc.health.v1 Check against kbenchd.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

// The server is NOT_SERVING when its job store refuses writes ("kbench.store", server/scheduler)
// or when no device is usable: say which.
std::string WhyNotServing(Session& session) {
  absl::StatusOr<health::HealthCheckResponse> store =
      session.connection().CheckHealth("kbench.store");
  if (store.ok() && store->status() != health::HealthCheckResponse::SERVING) {
    return ": its job store refuses writes (a database away or a full disk; kbench.store)";
  }
  return ": no device is usable (kbctl devices)";
}

absl::Status RunHealth(Session& session, const std::string& service) {
  KBENCH_ASSIGN_OR_RETURN(health::HealthCheckResponse response,
                          session.connection().CheckHealth(service));
  const std::string status = health::HealthCheckResponse::ServingStatus_Name(response.status());
  if (session.json()) {
    KBENCH_RETURN_IF_ERROR(session.PrintJson(response));
  } else {
    session.out() << status << "\n";
  }
  if (response.status() != health::HealthCheckResponse::SERVING) {
    return CheckFailedError(
        absl::StatusCode::kUnavailable,
        absl::StrCat(
            service.empty() ? "server " + session.connection().server() : "service " + service,
            " is ", status, service.empty() ? WhyNotServing(session) : ""));
  }
  return absl::OkStatus();
}

}  // namespace

void AddHealthCommand(CLI::App& app, Action* action) {
  auto service = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "health", "grpc.health.v1 Check: prints SERVING, or exits 1 when the server is not");
  cmd->add_option("SERVICE", *service,
                  "Service to ask about, e.g. kbench.v1.KbenchService (default: the server)");
  cmd->callback(
      [service, action] { *action = [service](Session& s) { return RunHealth(s, *service); }; });
}

}  // namespace kbench::client
