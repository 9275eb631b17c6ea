// kbctl's rendering of regression verdicts (`kbctl diff`, `--baseline`): one row per variant.
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"

namespace kbench::client {

std::string VerdictName(v1::Verdict verdict);  // "SAME", "FASTER", "SLOWER", "UNSURE"

// A header naming the two jobs, the key differences, and a table: variant, medians, change
// with its 95 % interval, the minimum effect, the test and its p-value, the verdict.
std::string RenderComparison(const v1::JobComparison& comparison);

}  // namespace kbench::client
