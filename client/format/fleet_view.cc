// The nodes table.
#include "client/format/fleet_view.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/format/table.h"
#include "client/format/units.h"

namespace kbench::client {

std::string RenderNodesTable(const v1::ListNodesResponse& nodes) {
  Table table({"NODE", "STATE", "HEARTBEAT", "CLAIMED", "DEVICES", "ADDRESS", "VERSION"});
  table.AlignRight(3);
  for (const v1::NodeInfo& n : nodes.nodes()) {
    std::vector<std::string> devices;
    for (const v1::DeviceInfo& d : n.devices()) devices.push_back(d.id());
    table.AddRow(
        {n.name().empty() ? "(this host)" : n.name(), n.alive() ? "alive" : "lost",
         n.name().empty() ? "-" : absl::StrCat(FormatElapsed(n.heartbeat_age_seconds()), " ago"),
         absl::StrCat(n.claimed_jobs()), absl::StrJoin(devices, ","),
         n.address().empty() ? "-" : n.address(), n.version().empty() ? "-" : n.version()});
  }
  return table.Render();
}

}  // namespace kbench::client
