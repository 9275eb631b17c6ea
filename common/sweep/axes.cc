// Parsing and expanding sweep axes.
#include "common/sweep/axes.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace kbench::sweep {
namespace {

absl::StatusOr<int64_t> ParseBound(const std::string& axis, absl::string_view what,
                                   absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, ": ", what, " \"", text, "\" is not a non-negative integer"));
  }
  return value;
}

absl::StatusOr<std::vector<std::string>> ParseRange(const std::string& axis,
                                                    const std::vector<absl::string_view>& parts,
                                                    int64_t max_values) {
  KBENCH_ASSIGN_OR_RETURN(int64_t start, ParseBound(axis, "start", parts[0]));
  KBENCH_ASSIGN_OR_RETURN(int64_t stop, ParseBound(axis, "stop", parts[1]));
  if (start > stop) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, ": start ", start, " is above stop ", stop));
  }
  absl::string_view step_text = parts.size() == 3 ? parts[2] : "+1";
  const bool geometric = absl::ConsumePrefix(&step_text, "*");
  if (!geometric && !absl::ConsumePrefix(&step_text, "+")) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, ": step \"", parts[2],
                                                   "\" must be *FACTOR (geometric) or +STEP "
                                                   "(linear)"));
  }
  KBENCH_ASSIGN_OR_RETURN(int64_t step, ParseBound(axis, "step", step_text));
  if (geometric && (step < 2 || start == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "axis ", axis, ": a geometric range needs a factor >= 2 and a start >= 1, got start ",
        start, " and *", step));
  }
  if (!geometric && step < 1) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, ": step must be >= 1"));
  }
  std::vector<std::string> values;
  for (int64_t v = start; v <= stop;) {
    if (static_cast<int64_t>(values.size()) == max_values) {
      return absl::ResourceExhaustedError(absl::StrCat("axis ", axis, ": the range has more than ",
                                                       max_values, " values (the limit)"));
    }
    values.push_back(absl::StrCat(v));
    const int64_t room = std::numeric_limits<int64_t>::max();
    if (geometric ? v > room / step : v > room - step) break;
    v = geometric ? v * step : v + step;
  }
  return values;
}

// The zip group of every axis (-1: not zipped), after checking `zip`.
absl::StatusOr<std::vector<int>> ZipGroups(const std::vector<Axis>& axes,
                                           const std::vector<std::string>& zip) {
  std::vector<int> group(axes.size(), -1);
  if (zip.empty()) return group;
  if (zip.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("zip: name at least two axes to zip, got \"", zip[0], "\""));
  }
  size_t length = 0;
  std::vector<std::string> lengths;
  for (const std::string& name : zip) {
    auto it = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == name; });
    if (it == axes.end()) {
      return absl::InvalidArgumentError(absl::StrCat("zip: \"", name, "\" is not a swept axis"));
    }
    const size_t index = static_cast<size_t>(it - axes.begin());
    if (group[index] == 0) {
      return absl::InvalidArgumentError(absl::StrCat("zip: \"", name, "\" is named twice"));
    }
    group[index] = 0;
    lengths.push_back(absl::StrCat(name, " has ", it->values.size()));
    if (length == 0) length = it->values.size();
    if (it->values.size() != length) {
      return absl::InvalidArgumentError(absl::StrCat(
          "zip: zipped axes need equal lengths: ", absl::StrJoin(lengths, ", "), " values"));
    }
  }
  return group;
}

absl::Status CheckAxes(const std::vector<Axis>& axes) {
  std::set<std::string> names;
  for (const Axis& axis : axes) {
    if (axis.name.empty()) return absl::InvalidArgumentError("axis: a name is empty");
    if (!names.insert(axis.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", axis.name, ": given twice"));
    }
    if (axis.values.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", axis.name, ": has no values"));
    }
  }
  return absl::OkStatus();
}

// A dimension of the cartesian product: one axis, or a zip group of several.
struct Dimension {
  std::vector<size_t> axes;
  size_t length = 0;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseAxisValues(const std::string& axis,
                                                         const std::string& text,
                                                         int64_t max_values) {
  if (text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, ": no values given"));
  }
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  if (parts.size() == 2 || parts.size() == 3) return ParseRange(axis, parts, max_values);
  if (parts.size() > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "axis ", axis, ": \"", text, "\" is not START:STOP:*FACTOR or START:STOP:+STEP"));
  }
  std::vector<std::string> values;
  for (absl::string_view v : absl::StrSplit(text, ',')) {
    v = absl::StripAsciiWhitespace(v);
    if (v.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", axis, ": \"", text, "\" has an empty value"));
    }
    if (std::find(values.begin(), values.end(), v) != values.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis ", axis, ": value \"", v, "\" is listed twice"));
    }
    values.emplace_back(v);
  }
  if (static_cast<int64_t>(values.size()) > max_values) {
    return absl::ResourceExhaustedError(
        absl::StrCat("axis ", axis, ": more than ", max_values, " values (the limit)"));
  }
  return values;
}

absl::StatusOr<Axis> ParseAxisFlag(const std::string& flag, int64_t max_values) {
  std::pair<std::string, std::string> kv = absl::StrSplit(flag, absl::MaxSplits('=', 1));
  if (kv.first.empty() || flag.find('=') == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("--axis \"", flag, "\": expected NAME=VALUES, e.g. cols=1024:32768:*2"));
  }
  Axis axis{kv.first, {}};
  KBENCH_ASSIGN_OR_RETURN(axis.values, ParseAxisValues(kv.first, kv.second, max_values));
  return axis;
}

absl::StatusOr<std::vector<Point>> ExpandPoints(const std::vector<Axis>& axes,
                                                const std::vector<std::string>& zip,
                                                int64_t max_points) {
  KBENCH_RETURN_IF_ERROR(CheckAxes(axes));
  KBENCH_ASSIGN_OR_RETURN(std::vector<int> group, ZipGroups(axes, zip));
  std::vector<Dimension> dims;
  int zip_dim = -1;
  int64_t count = 1;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (group[i] == 0 && zip_dim >= 0) {
      dims[static_cast<size_t>(zip_dim)].axes.push_back(i);
      continue;
    }
    if (group[i] == 0) zip_dim = static_cast<int>(dims.size());
    dims.push_back({{i}, axes[i].values.size()});
    // Checked before multiplying, so the count never overflows.
    if (count > max_points / static_cast<int64_t>(axes[i].values.size())) {
      return absl::ResourceExhaustedError(absl::StrCat("the sweep has more than ", max_points,
                                                       " points (the limit); sweep fewer values"));
    }
    count *= static_cast<int64_t>(axes[i].values.size());
  }
  std::vector<Point> points;
  points.reserve(static_cast<size_t>(count));
  for (int64_t n = 0; n < count; ++n) {
    // The mixed-radix digits of n, the last dimension varying fastest.
    std::vector<size_t> digit(dims.size());
    int64_t rest = n;
    for (size_t d = dims.size(); d-- > 0;) {
      digit[d] = static_cast<size_t>(rest % static_cast<int64_t>(dims[d].length));
      rest /= static_cast<int64_t>(dims[d].length);
    }
    Point point(axes.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      for (size_t a : dims[d].axes) point[a] = {axes[a].name, axes[a].values[digit[d]]};
    }
    points.push_back(std::move(point));
  }
  return points;
}

}  // namespace kbench::sweep
