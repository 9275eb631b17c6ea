// Parsing of ncu's CSV. Columns are found by name, not position: ncu versions add columns.
#include "server/executor/profile/ncu_csv.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
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

const std::vector<std::string>& NcuStallReasons() {
  static const std::vector<std::string> reasons = {
      "barrier",     "branch_resolving", "dispatch_stall",     "drain",    "imc_miss",
      "lg_throttle", "long_scoreboard",  "math_pipe_throttle", "membar",   "mio_throttle",
      "misc",        "no_instruction",   "short_scoreboard",   "sleeping", "tex_throttle",
      "wait"};
  return reasons;
}

std::string NcuMetricList() {
  std::vector<std::string> metrics = {
      kNcuDuration,     kNcuDramThroughput, kNcuSmThroughput,   kNcuAchievedOccupancy,
      kNcuL2HitRate,    kNcuDramReadBytes,  kNcuDramWriteBytes, kNcuL2Bytes,
      kNcuInstructions, kNcuRegisters,      kNcuLocalLoadBytes, kNcuLocalStoreBytes};
  for (const std::string& reason : NcuStallReasons()) {
    metrics.push_back(absl::StrCat(kNcuStallPrefix, reason, kNcuStallSuffix));
  }
  return absl::StrJoin(metrics, ",");
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

namespace {

// Each metric's mean over one kernel's launches.
using MetricMeans = std::map<std::string, double>;

std::optional<double> Find(const MetricMeans& means, const std::string& metric) {
  auto it = means.find(metric);
  if (it == means.end()) return std::nullopt;
  return it->second;
}

// The quantities `kbctl diff --explain` compares; each is set only when ncu reported it, so
// that "not measured" never reads as zero.
void SetExplainQuantities(const MetricMeans& means, v1::NcuMetrics* m) {
  const std::optional<double> read = Find(means, kNcuDramReadBytes);
  const std::optional<double> write = Find(means, kNcuDramWriteBytes);
  if (read) m->set_dram_read_bytes(*read);
  if (write) m->set_dram_write_bytes(*write);
  if (read && write) m->set_dram_bytes(*read + *write);
  if (auto v = Find(means, kNcuL2Bytes)) m->set_l2_bytes(*v);
  if (auto v = Find(means, kNcuInstructions)) m->set_instructions_executed(*v);
  if (auto v = Find(means, kNcuRegisters)) m->set_registers_per_thread(static_cast<int32_t>(*v));
  if (auto v = Find(means, kNcuLocalLoadBytes)) m->set_local_load_bytes(*v);
  if (auto v = Find(means, kNcuLocalStoreBytes)) m->set_local_store_bytes(*v);
}

// The largest stall reasons with their share of all listed reasons, largest first.
void SetTopStallReasons(const MetricMeans& means, v1::NcuMetrics* m) {
  std::vector<std::pair<double, std::string>> stalls;
  double total = 0;
  for (const std::string& reason : NcuStallReasons()) {
    const std::optional<double> v =
        Find(means, absl::StrCat(kNcuStallPrefix, reason, kNcuStallSuffix));
    if (!v || *v <= 0) continue;
    stalls.emplace_back(*v, reason);
    total += *v;
  }
  std::sort(stalls.begin(), stalls.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (stalls.size() > static_cast<size_t>(kNcuTopStallReasons)) stalls.resize(kNcuTopStallReasons);
  for (const auto& [value, reason] : stalls) {
    v1::NcuMetrics::StallReason* s = m->add_top_stall_reasons();
    s->set_name(reason);
    s->set_warps_per_issue(value);
    s->set_share(value / total);
  }
}

}  // namespace

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
    MetricMeans means;
    for (const auto& [metric, sum_count] : sums[kernel]) {
      means[metric] = sum_count.first / sum_count.second;
    }
    const auto mean = [&](const char* metric) { return Find(means, metric).value_or(0.0); };
    v1::NcuMetrics& m = out.emplace_back();
    m.set_kernel(Demangle(kernel));
    m.set_duration_seconds(mean(kNcuDuration));
    m.set_dram_throughput_percent(mean(kNcuDramThroughput));
    m.set_sm_throughput_percent(mean(kNcuSmThroughput));
    m.set_achieved_occupancy_percent(mean(kNcuAchievedOccupancy));
    m.set_l2_hit_rate_percent(mean(kNcuL2HitRate));
    SetExplainQuantities(means, &m);
    SetTopStallReasons(means, &m);
  }
  return out;
}

}  // namespace kbench::executor::profile
