// The self-contained HTML page of `kbctl diff A B -f FILE`: the verdict of each variant with its
// change, interval, the noise it was judged against and why, and, with --explain, what changed
// in the profiled kernels (ranked findings, per-kernel quantities, the SASS opcode diff, what
// could not be measured). The same facts as kbctl's text, for a CI job's artifacts.
#pragma once

#include <string>

#include "kbench/v1/explain.pb.h"

namespace kbench::report {

// `generated`: when, in words (UTC); `explained`: whether --explain was asked, so that a page
// with no explanation says why there is none.
std::string RenderDiffReport(const v1::ExplainedComparison& diff, const std::string& generated,
                             bool explained);

}  // namespace kbench::report
