// kbctl version: this kbctl's version and API, and the server's (each node's in a fleet), as
// kubectl version prints client and server. --client asks no server.
#include "client/commands/commands.h"
#include "client/format/json.h"
#include "common/status_macros.h"
#include "google/protobuf/struct.pb.h"

namespace kbench::client {
namespace {

// The gRPC API's package: what a server and a client must share to talk.
constexpr char kApi[] = "kbench.v1";

google::protobuf::Value VersionText(const std::string& text) {
  google::protobuf::Value v;
  v.set_string_value(text);
  return v;
}

absl::Status RunVersion(Session& session, bool client_only) {
  google::protobuf::Struct document;
  google::protobuf::Struct& client = *(*document.mutable_fields())["client"].mutable_struct_value();
  (*client.mutable_fields())["version"] = VersionText(KBENCH_VERSION);
  (*client.mutable_fields())["api"] = VersionText(kApi);
  if (client_only) {
    if (session.json()) return session.PrintJson(document);
    session.out() << "Client: kbctl " << KBENCH_VERSION << " (API " << kApi << ")\n";
    return absl::OkStatus();
  }
  KBENCH_ASSIGN_OR_RETURN(v1::ListNodesResponse nodes, session.connection().ListNodes());
  if (session.json()) {
    KBENCH_ASSIGN_OR_RETURN((*document.mutable_fields())["server"], ToJsonValue(nodes));
    return session.PrintJson(document);
  }
  session.out() << "Client: kbctl " << KBENCH_VERSION << " (API " << kApi << ")\n";
  for (const v1::NodeInfo& node : nodes.nodes()) {
    session.out() << "Server: kbenchd " << (node.version().empty() ? "(unknown)" : node.version())
                  << " (API " << kApi << ")";
    if (!node.name().empty()) session.out() << ", node " << node.name();
    if (!node.address().empty()) session.out() << ", listening on " << node.address();
    if (!node.alive()) session.out() << ", not alive";
    session.out() << "\n";
  }
  return absl::OkStatus();
}

}  // namespace

void AddVersionCommand(CLI::App& app, Action* action) {
  auto client_only = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "version",
      "Print kbctl's version and the server's (every node's in a fleet), with the API they speak");
  cmd->add_flag("--client", *client_only, "Only kbctl's own version: no server is asked");
  cmd->callback([client_only, action] {
    *action = [client_only](Session& s) { return RunVersion(s, *client_only); };
  });
}

}  // namespace kbench::client
