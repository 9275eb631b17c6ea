// Checks on a Chrome trace that tests share: no two slices of one track overlap partially
// (Perfetto and chrome://tracing nest slices of a track by time and draw a partial overlap
// wrongly), written independently of the builder's own track assignment.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace kbench::executor::profile::testing {

// One line per slice that starts inside another slice of its track and ends after it.
inline std::vector<std::string> PartialOverlaps(const nlohmann::json& trace) {
  struct Slice {
    int64_t start, end;
    std::string name;
  };
  std::map<std::pair<int64_t, int64_t>, std::vector<Slice>> tracks;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    // "ts" and "dur" are microseconds with nanosecond resolution.
    const int64_t start = std::llround(e["ts"].get<double>() * 1000);
    const int64_t end = start + std::llround(e["dur"].get<double>() * 1000);
    tracks[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}].push_back(
        {start, end, e["name"].get<std::string>()});
  }
  std::vector<std::string> problems;
  for (auto& [track, slices] : tracks) {
    std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    std::vector<const Slice*> open;  // enclosing slices, innermost last
    for (const Slice& s : slices) {
      while (!open.empty() && open.back()->end <= s.start) open.pop_back();
      if (!open.empty() && s.end > open.back()->end) {
        problems.push_back(absl::StrCat("pid ", track.first, " tid ", track.second, ": ", s.name,
                                        " [", s.start, ", ", s.end, ") overlaps ",
                                        open.back()->name, " [", open.back()->start, ", ",
                                        open.back()->end, ")"));
      }
      open.push_back(&s);
    }
  }
  return problems;
}

}  // namespace kbench::executor::profile::testing
