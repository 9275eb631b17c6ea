// kbctl nodes: the fleet's nodes, whether each is alive, its heartbeat, devices and claimed jobs.
#include "client/commands/commands.h"
#include "client/format/fleet_view.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

absl::Status RunNodes(Session& session) {
  KBENCH_ASSIGN_OR_RETURN(v1::ListNodesResponse nodes, session.connection().ListNodes());
  if (session.json()) return session.PrintJson(nodes);
  session.out() << RenderNodesTable(nodes);
  return absl::OkStatus();
}

}  // namespace

void AddNodesCommand(CLI::App& app, Action* action) {
  CLI::App* cmd = app.add_subcommand(
      "nodes", "List the fleet's nodes: alive or lost, last heartbeat, claimed jobs, devices");
  cmd->callback([action] { *action = RunNodes; });
}

}  // namespace kbench::client
