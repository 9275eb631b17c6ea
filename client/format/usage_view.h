// How kbctl shows GetUsage and a queued job's place in line.
#pragma once

#include <string>

#include "kbench/v1/service.pb.h"

namespace kbench::client {

// A table of owners in fair-share order (least decayed usage first: next served), then a line
// with the half-life and the daemon's queue.
std::string RenderUsage(const v1::GetUsageResponse& usage);

// "3rd in line on cuda:0, about 40 s" ("next in line", "about 2 min"); "" without a place.
std::string DescribeQueuePlace(const v1::QueuePlace& place);

// 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ...
std::string Ordinal(int64_t n);

}  // namespace kbench::client
