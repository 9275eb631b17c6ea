// kbctl health [SERVICE]: grpc.health.v1 Check against kbenchd.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "client/commands/commands.h"
#include "client/errors.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

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
    return CheckFailedError(absl::StatusCode::kUnavailable,
                            absl::StrCat(service.empty() ? "server " + session.connection().server()
                                                         : "service " + service,
                                         " is ", status));
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
