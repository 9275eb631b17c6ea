// Sweep axes as users write them (nvbench-like): "cols=1024:32768:*2", "rows=4096",
// "dtype=f32,bf16", and their expansion into points, cartesian or zipped. No server, no proto:
// kbenchd validates with it at submit and kbctl reports the same errors before sending.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::sweep {

// The default cap on a sweep's points: each point is a job in the store and the queue.
inline constexpr int64_t kMaxPoints = 1000;

struct Axis {
  std::string name;
  // In the order they are swept; numbers written in decimal.
  std::vector<std::string> values;
};

// One point: a value per axis, in the axes' order.
using Point = std::vector<std::pair<std::string, std::string>>;

// The values of `text`: a comma list ("f32,bf16", "1,3,7"), a geometric range
// "START:STOP:*FACTOR" (FACTOR >= 2), a linear range "START:STOP:+STEP" (STEP >= 1) or
// "START:STOP" (step 1). Ranges hold integers with 0 <= START <= STOP and include STOP when a
// step lands on it. INVALID_ARGUMENT naming the axis and what is wrong; RESOURCE_EXHAUSTED when
// a range has more than `max_values` values.
absl::StatusOr<std::vector<std::string>> ParseAxisValues(const std::string& axis,
                                                         const std::string& text,
                                                         int64_t max_values = kMaxPoints);

// "NAME=VALUES" as given to kbctl's --axis.
absl::StatusOr<Axis> ParseAxisFlag(const std::string& flag, int64_t max_values = kMaxPoints);

// Every point of `axes`: the axes named in `zip` advance together (they must have equal
// lengths; the group takes the place of its first axis), and the groups form a cartesian
// product in which the last axis varies fastest. INVALID_ARGUMENT for duplicate or empty axis
// names, an empty axis, a zip naming an unknown axis or fewer than two, or zipped axes of
// unequal lengths; RESOURCE_EXHAUSTED when there would be more than `max_points` points.
absl::StatusOr<std::vector<Point>> ExpandPoints(const std::vector<Axis>& axes,
                                                const std::vector<std::string>& zip,
                                                int64_t max_points = kMaxPoints);

}  // namespace kbench::sweep
