// Parsing of ncu's CSV. Columns are found by name, not position: ncu versions add columns.
#include "server/executor/profile/ncu_csv.h"

#include <cstdlib>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "server/executor/profile/demangle.h"

namespace kbench::executor::profile {
namespace {

// Seconds per unit for the time units ncu prints; 0 for units left as they are.
double TimeScale(const std::string& unit) {
  if (unit == "nsecond" || unit == "ns") return 1e-9;
  if (unit == "usecond" || unit == "us") return 1e-6;
  if (unit == "msecond" || unit == "ms") return 1e-3;
  if (unit == "second" || unit == "s") return 1.0;
  return 0;
}

bool ParseNumber(std::string text, double* out) {
  // ncu may group thousands ("1,234.5") even in CSV.
  text = absl::StrReplaceAll(absl::StripAsciiWhitespace(text), {{",", ""}});
  if (text.empty() || text == "n/a") return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

}  // namespace

std::string NcuMetricList() {
  return absl::StrJoin(
      {kNcuDuration, kNcuDramThroughput, kNcuSmThroughput, kNcuAchievedOccupancy, kNcuL2HitRate},
      ",");
}

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

absl::StatusOr<std::vector<NcuLaunch>> ParseNcuRawCsv(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> header, units;
  std::vector<NcuLaunch> launches;
  int kernel_column = -1;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    if (header.empty()) {
      if (!absl::StartsWith(line, "\"ID\"")) continue;  // ==PROF== notes and the like
      header = SplitCsvLine(line);
      for (size_t c = 0; c < header.size(); ++c) {
        if (header[c] == "Kernel Name") kernel_column = static_cast<int>(c);
      }
      if (kernel_column < 0) {
        return absl::InvalidArgumentError("ncu csv: the header has no \"Kernel Name\" column");
      }
      continue;
    }
    std::vector<std::string> fields = SplitCsvLine(line);
    if (fields.size() != header.size()) {
      return absl::InvalidArgumentError(absl::StrCat("ncu csv: line ", line_number, " has ",
                                                     fields.size(), " fields, the header ",
                                                     header.size()));
    }
    // The units row follows the header; its ID and kernel name are empty.
    if (units.empty() && fields[0].empty() && fields[static_cast<size_t>(kernel_column)].empty()) {
      units = std::move(fields);
      continue;
    }
    NcuLaunch& launch = launches.emplace_back();
    launch.kernel = fields[static_cast<size_t>(kernel_column)];
    for (size_t c = 0; c < header.size(); ++c) {
      if (header[c].find("__") == std::string::npos) continue;  // not a metric column
      double v = 0;
      if (!ParseNumber(fields[c], &v)) continue;
      const double scale = units.empty() ? 0 : TimeScale(units[c]);
      launch.values[header[c]] = scale > 0 ? v * scale : v;
    }
  }
  if (header.empty()) return absl::InvalidArgumentError("ncu csv: no header row (\"ID\",...)");
  return launches;
}

std::vector<v1::NcuMetrics> SummarizeNcu(const std::vector<NcuLaunch>& launches) {
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, std::pair<double, int>>> sums;
  for (const NcuLaunch& l : launches) {
    if (!sums.contains(l.kernel)) order.push_back(l.kernel);
    auto& per_kernel = sums[l.kernel];
    for (const auto& [metric, value] : l.values) {
      per_kernel[metric].first += value;
      per_kernel[metric].second++;
    }
  }
  std::vector<v1::NcuMetrics> out;
  for (const std::string& kernel : order) {
    const auto& per_kernel = sums[kernel];
    const auto mean = [&](const char* metric) {
      auto it = per_kernel.find(metric);
      return it == per_kernel.end() ? 0.0 : it->second.first / it->second.second;
    };
    v1::NcuMetrics& m = out.emplace_back();
    m.set_kernel(Demangle(kernel));
    m.set_duration_seconds(mean(kNcuDuration));
    m.set_dram_throughput_percent(mean(kNcuDramThroughput));
    m.set_sm_throughput_percent(mean(kNcuSmThroughput));
    m.set_achieved_occupancy_percent(mean(kNcuAchievedOccupancy));
    m.set_l2_hit_rate_percent(mean(kNcuL2HitRate));
  }
  return out;
}

}  // namespace kbench::executor::profile
