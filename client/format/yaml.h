// kbctl -o yaml: the JSON document a command prints with -o json, as YAML (kubectl's formats).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace kbench::client {

// One JSON document as a YAML document: maps and lists in block style (empty ones in flow
// style), numbers and booleans as themselves, and strings quoted wherever YAML would read them
// as something else ("123", "true", "null", "1e3", "") so that the types survive a round trip.
// INVALID_ARGUMENT when `json` is not one JSON document.
absl::StatusOr<std::string> JsonToYaml(const std::string& json);

}  // namespace kbench::client
