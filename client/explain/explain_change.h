// Why a variant got faster or slower, from a profile of each side (issue 26, item 6): kernels
// paired by name, each measured quantity's change, ranked by how much it plausibly explains the
// time change, and rendered as one line per kernel, e.g.
// "+38 % DRAM bytes in softmax_kernel; spills 0 → 24 B; registers 64 → 32 (time +25 %, ...)".
#pragma once

#include <optional>
#include <string>

#include "kbench/v1/explain.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::client::explain {

// Changes smaller than this (relative) are noise between two profiles, not findings.
inline constexpr double kMinRelativeChange = 0.02;
// A stall reason's share of all stalls must move by this much (absolute) to be a finding.
inline constexpr double kMinStallShareChange = 0.10;

// The disassembly (sass.txt) of the two sides' user kernel.
struct SassTexts {
  std::string baseline;
  std::string candidate;
};

// Compares two profile results of the same problem. Fills changes (ordered: the kernel whose
// time changed most first; within a kernel, calls, then what ncu measured while it ran, then
// its resources; each group by weight), findings (one line per kernel, kernels added or removed
// first, the SASS diff last), kernels_added/removed, sass_changes, and not_measured for what
// neither profile could say (ncu absent on either side). Verdict, change and job ids are the
// caller's.
v1::VariantExplanation ExplainChange(const v1::ProfileResult& baseline,
                                     const v1::ProfileResult& candidate,
                                     const std::optional<SassTexts>& sass);

}  // namespace kbench::client::explain
