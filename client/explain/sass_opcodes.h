// The SASS opcode histogram of a user kernel's disassembly (sass.txt, from nvdisasm or
// cuobjdump -sass) and its change between two builds: "+24 STL, +24 LDL, -3 FFMA".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kbench/v1/explain.pb.h"

namespace kbench::client::explain {

// Opcode (without its modifiers: "LDG.E.128" counts as LDG) → how many instructions use it.
// Lines that are not instructions (headers, labels, encodings) are skipped.
std::map<std::string, int64_t> SassOpcodeHistogram(const std::string& sass);

// The opcodes whose counts differ, largest absolute change first (ties by name).
std::vector<v1::OpcodeCountChange> DiffOpcodes(const std::map<std::string, int64_t>& baseline,
                                               const std::map<std::string, int64_t>& candidate);

// "+24 STL, +24 LDL, -3 FFMA" for at most `limit` changes, "and N more" after them.
std::string FormatOpcodeChanges(const std::vector<v1::OpcodeCountChange>& changes, int limit);

}  // namespace kbench::client::explain
