// kbctl's text for `diff --explain`: after the verdict table, per explained pair, its findings
// (most explanatory first) and what could not be measured.
#pragma once

#include <string>

#include "kbench/v1/explain.pb.h"

namespace kbench::client::explain {

// "" when nothing was in scope (no FASTER or SLOWER pair), else a block per pair, e.g.
//   Why softmax/@user is SLOWER (+25.3 %): profiles j-12 and j-13
//     +38 % DRAM bytes in softmax_kernel; spills 0 → 24 B; registers 64 → 32 (time ...)
//     SASS: +24 STL, +24 LDL, -3 FFMA
//     Not measured: SASS of the baseline: sass.txt is readable only by ...
std::string RenderExplanations(const v1::ExplainedComparison& explained);

}  // namespace kbench::client::explain
