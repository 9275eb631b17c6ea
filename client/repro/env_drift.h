// What changed between a job's conditions and its reproduction's: every field of
// kbench.v1.Environment, found by reflection so that a field added to the message is compared
// without a change here, and each user variant's module record (sha256, compiler, options).
// Per-run noise (seeds, secrets, measured clocks and temperatures, durations) is left out.
#pragma once

#include <string>
#include <vector>

#include "kbench/v1/types.pb.h"

namespace kbench::client {

struct Drift {
  std::string field;  // "driver_version", "idle_gate.enabled", "variants[@user].module_sha256"
  std::string old_value;
  std::string new_value;
};

// The fields that differ, in the order of the messages' fields; empty when nothing drifted.
std::vector<Drift> EnvironmentDrift(const v1::JobResult& old_result,
                                    const v1::JobResult& new_result);

// "field: old -> new" per line, or a line saying that nothing drifted.
std::string RenderDrift(const std::vector<Drift>& drift);

}  // namespace kbench::client
