// Why a verdict is what it is, in words a person can act on: for UNSURE, what the device can
// resolve and what to run to resolve the minimum effect (docs/verdicts.md).
#pragma once

#include <string>

#include "kbench/v1/history.pb.h"

namespace kbench::client {

// `c` filled but for its reason; `family_size` the variants compared with it.
std::string VerdictReason(const v1::VariantComparison& c, const std::string& baseline_job,
                          int family_size);

}  // namespace kbench::client
