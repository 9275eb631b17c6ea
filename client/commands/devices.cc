// kbctl devices: the daemon's devices with their measured bandwidth, peaks and queues.
#include "client/commands/commands.h"
#include "client/format/catalogue_view.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status RunDevices(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListDevicesResponse devices, session.connection().ListDevices());
  if (session.json()) return session.PrintJson(devices);
  session.out() << RenderDevicesTable(devices);
  return absl::OkStatus();
}

}  // namespace

void AddDevicesCommand(CLI::App& app, Action* action) {
  CLI::App* cmd = app.add_subcommand(
      "devices", "List devices: kind, state, memory, measured copy bandwidth, peaks, queue");
  cmd->callback([action] { *action = RunDevices; });
}

}  // namespace kbench::client
