// Human-readable views of a profile job's result: the per-kernel summary (like PyTorch
// profiler's key_averages), kernel resources, the breakdown by category, Nsight Compute metrics.
#pragma once

#include <string>

#include "kbench/v1/types.pb.h"

namespace kbench::client {

std::string RenderProfile(const v1::ProfileResult& profile);

}  // namespace kbench::client
