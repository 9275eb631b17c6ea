// Building a SweepTable from a sweep's jobs, and its CSV and JSON forms.
#include "common/report/sweep_table.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/csv_cell.h"
#include "common/enum_words.h"
#include "common/stopping_defaults.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace kbench::report {
namespace {

VariantCell CellOf(const v1::VariantResult& r) {
  VariantCell c;
  c.variant = r.variant();
  c.measured = r.stats().samples() > 0;
  c.median_seconds = r.stats().median_seconds();
  c.ci_low_seconds = r.stats().median_ci_low_seconds();
  c.ci_high_seconds = r.stats().median_ci_high_seconds();
  c.relative_stddev = r.stats().relative_stddev();
  c.samples = r.stats().samples();
  c.bytes_per_second = r.bytes_per_second();
  c.flops_per_second = r.flops_per_second();
  c.fraction_of_copy_bandwidth = r.fraction_of_copy_bandwidth();
  c.fraction_of_peak_flops = r.fraction_of_peak_flops();
  c.peer_bandwidth_bytes_per_second = r.collective().peak_bus_bytes_per_second();
  c.speedup_vs_first = r.speedup_vs_first();
  c.checked = r.correctness().checked();
  c.passed = r.correctness().passed();
  c.relative_l2_error = r.correctness().relative_l2_error();
  c.tolerance = r.correctness().tolerance();
  c.check_detail = r.correctness().detail();
  return c;
}

PointRow RowOf(const v1::Job& job) {
  PointRow row;
  row.job_id = job.id();
  row.device = job.device();
  row.state = JobStateWord(job.state());
  row.error = job.error();
  row.dtype = DTypeName(job.spec().dtype());
  for (const v1::VariantResult& r : job.result().variants()) row.cells.push_back(CellOf(r));
  return row;
}

// The ceilings, recovered from each result's rate and its fraction of the ceiling: the
// executor measured the copy bandwidth at its start and derived the peaks from the clocks.
void AddCeilings(SweepTable* table) {
  std::vector<double> copy;
  std::vector<double> peer;
  std::map<std::string, double> peaks;
  for (const PointRow& row : table->rows) {
    for (const VariantCell& c : row.cells) {
      if (c.peer_bandwidth_bytes_per_second > 0) peer.push_back(c.peer_bandwidth_bytes_per_second);
      if (c.fraction_of_copy_bandwidth > 0) {
        copy.push_back(c.bytes_per_second / c.fraction_of_copy_bandwidth);
      }
      if (c.fraction_of_peak_flops > 0) {
        peaks[row.dtype] = c.flops_per_second / c.fraction_of_peak_flops;
      }
    }
  }
  if (!copy.empty()) {
    std::nth_element(copy.begin(), copy.begin() + static_cast<long>(copy.size() / 2), copy.end());
    table->copy_bandwidth_bytes_per_second = copy[copy.size() / 2];
  }
  if (!peer.empty()) {
    std::nth_element(peer.begin(), peer.begin() + static_cast<long>(peer.size() / 2), peer.end());
    table->peer_bandwidth_bytes_per_second = peer[peer.size() / 2];
  }
  for (const auto& [dtype, peak] : peaks) {
    table->peak_flops.push_back({absl::StrCat("peak ", dtype), peak});
  }
}

void CollectDevices(SweepTable* table) {
  for (const PointRow& row : table->rows) {
    if (!row.device.empty() && std::find(table->devices.begin(), table->devices.end(),
                                         row.device) == table->devices.end()) {
      table->devices.push_back(row.device);
    }
  }
  table->device = absl::StrJoin(table->devices, ", ");
}

void CollectVariants(SweepTable* table) {
  for (const PointRow& row : table->rows) {
    for (const VariantCell& c : row.cells) {
      if (std::find(table->variants.begin(), table->variants.end(), c.variant) ==
          table->variants.end()) {
        table->variants.push_back(c.variant);
      }
    }
  }
}

void TakeEnvironment(const std::vector<v1::Job>& jobs, SweepTable* table) {
  for (const v1::Job& job : jobs) {
    if (job.result().has_environment()) {
      table->environment = job.result().environment();
      return;
    }
  }
}

std::string Number(double v) { return absl::StrFormat("%.6g", v); }

google::protobuf::Value NumberValue(double v) {
  google::protobuf::Value value;
  value.set_number_value(v);
  return value;
}
google::protobuf::Value StringValue(const std::string& s) {
  google::protobuf::Value value;
  value.set_string_value(s);
  return value;
}

google::protobuf::Value CellJson(const VariantCell& c) {
  google::protobuf::Value v;
  auto& f = *v.mutable_struct_value()->mutable_fields();
  f["variant"] = StringValue(c.variant);
  f["median_seconds"] = NumberValue(c.median_seconds);
  f["median_ci_low_seconds"] = NumberValue(c.ci_low_seconds);
  f["median_ci_high_seconds"] = NumberValue(c.ci_high_seconds);
  f["relative_stddev"] = NumberValue(c.relative_stddev);
  f["samples"] = NumberValue(static_cast<double>(c.samples));
  f["bytes_per_second"] = NumberValue(c.bytes_per_second);
  f["flops_per_second"] = NumberValue(c.flops_per_second);
  f["fraction_of_copy_bandwidth"] = NumberValue(c.fraction_of_copy_bandwidth);
  f["fraction_of_peak_flops"] = NumberValue(c.fraction_of_peak_flops);
  f["speedup_vs_first"] = NumberValue(c.speedup_vs_first);
  f["checked"].set_bool_value(c.checked);
  f["passed"].set_bool_value(c.passed);
  f["relative_l2_error"] = NumberValue(c.relative_l2_error);
  return v;
}

google::protobuf::Value RowJson(const PointRow& row) {
  google::protobuf::Value v;
  auto& f = *v.mutable_struct_value()->mutable_fields();
  auto& values = *f["values"].mutable_struct_value()->mutable_fields();
  for (const auto& [axis, value] : row.values) values[axis] = StringValue(value);
  f["index"] = NumberValue(row.index);
  f["job_id"] = StringValue(row.job_id);
  f["device"] = StringValue(row.device);
  f["state"] = StringValue(row.state);
  if (!row.error.empty()) f["error"] = StringValue(row.error);
  auto* cells = f["variants"].mutable_list_value();
  for (const VariantCell& c : row.cells) *cells->add_values() = CellJson(c);
  return v;
}

}  // namespace

std::string DTypeName(v1::DType dtype) {
  const std::string word = DTypeWord(dtype);
  return word.empty() ? "-" : word;
}

std::string JobStateWord(v1::JobState state) {
  const std::string name = v1::JobState_Name(state);
  return absl::AsciiStrToLower(absl::StripPrefix(name, "JOB_STATE_"));
}

namespace {

std::string ModeWord(v1::MeasureMode mode) {
  if (mode == v1::MEASURE_MODE_UNSPECIFIED)
    return "the device's default (cold on GPUs, hot on cpu)";
  return absl::AsciiStrToLower(absl::StripPrefix(v1::MeasureMode_Name(mode), "MEASURE_MODE_"));
}

std::string StoppingRule(const v1::StoppingCriteria& s) {
  const auto pick = [](double v, double d) { return v > 0 ? v : d; };
  return absl::StrFormat(
      "until the median's 95 %% interval is within %.3g %% (or the samples' spread is), at least "
      "%d samples and %.3g s measured; at most %.3g s",
      100 * pick(s.max_noise(), kDefaultMaxNoise),
      s.min_samples() > 0 ? s.min_samples() : kDefaultMinSamples,
      pick(s.min_time_seconds(), kDefaultMinTimeSeconds),
      pick(s.timeout_seconds(), kDefaultTimeoutSeconds));
}

// What a reader needs to judge and repeat the measurement.
std::vector<std::pair<std::string, std::string>> ProtocolOf(const v1::JobSpec& spec,
                                                            const std::string& reproduce) {
  std::vector<std::pair<std::string, std::string>> p;
  p.emplace_back("mode", ModeWord(spec.mode()));
  if (spec.ranked()) p.emplace_back("ranked run", "yes: the protocol leaderboards rank");
  p.emplace_back("buffer placements", spec.placements() > 1
                                          ? absl::StrCat(spec.placements(), ", sampled interleaved")
                                          : "1");
  p.emplace_back("stopping rule", StoppingRule(spec.stopping()));
  p.emplace_back("inputs", spec.seed() != 0 ? absl::StrCat("seeded random, seed ", spec.seed())
                                            : "seeded random, a fresh seed each job (recorded)");
  p.emplace_back("reproduce", reproduce);
  return p;
}

}  // namespace

SweepTable BuildSweepTable(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs) {
  SweepTable table;
  table.kernel = sweep.spec().base().kernel();
  table.title = absl::StrCat("Sweep ", sweep.id(), ": ", table.kernel);
  for (const v1::SweepAxis& axis : sweep.spec().axes()) table.axes.push_back(axis.name());
  for (int i = 0; i < sweep.points_size(); ++i) {
    const v1::SweepPoint& point = sweep.points(i);
    const v1::Job* job = nullptr;
    for (const v1::Job& j : jobs) {
      if (j.id() == point.job_id()) job = &j;
    }
    PointRow row = job != nullptr ? RowOf(*job) : PointRow{};
    row.index = point.index();
    row.job_id = point.job_id();
    if (job == nullptr) row.state = JobStateWord(point.state());
    for (const v1::AxisValue& v : point.values()) row.values.emplace_back(v.axis(), v.value());
    table.rows.push_back(std::move(row));
  }
  CollectDevices(&table);
  CollectVariants(&table);
  TakeEnvironment(jobs, &table);
  AddCeilings(&table);
  table.protocol =
      ProtocolOf(sweep.spec().base(),
                 "kbctl repro JOB, for the job of the point to repeat (each row names it)");
  return table;
}

SweepTable BuildJobTable(const v1::Job& job) {
  SweepTable table;
  table.kernel = job.spec().kernel();
  table.title = absl::StrCat("Job ", job.id(), ": ", table.kernel);
  PointRow row = RowOf(job);
  row.values.emplace_back("shape", absl::StrJoin(job.spec().shape(), "x"));
  row.values.emplace_back("dtype", row.dtype);
  table.axes = {"shape", "dtype"};
  table.rows.push_back(std::move(row));
  CollectDevices(&table);
  CollectVariants(&table);
  TakeEnvironment({job}, &table);
  AddCeilings(&table);
  table.protocol = ProtocolOf(job.spec(), absl::StrCat("kbctl repro ", job.id()));
  return table;
}

std::string MixedDevicesWarning(const SweepTable& table) {
  if (table.devices.size() < 2) return "";
  return absl::StrCat(
      "the points ran on ", table.devices.size(),
      " devices; each point's variants were timed on one, so speedups hold within a point, but "
      "a curve across points crosses devices (give the sweep one NODE/DEVICE for one device)");
}

std::string ToCsv(const SweepTable& table) {
  std::vector<std::string> header = {"point"};
  for (const std::string& axis : table.axes) header.push_back(CsvCell(axis));
  for (const char* column :
       {"variant", "state", "median_seconds", "median_ci_low_seconds", "median_ci_high_seconds",
        "relative_stddev", "samples", "bytes_per_second", "flops_per_second",
        "fraction_of_copy_bandwidth", "fraction_of_peak_flops", "speedup_vs_first", "checked",
        "passed", "relative_l2_error", "job_id", "device"}) {
    header.emplace_back(column);
  }
  std::string out = absl::StrCat(absl::StrJoin(header, ","), "\n");
  for (const PointRow& row : table.rows) {
    std::vector<std::string> lead = {absl::StrCat(row.index)};
    for (const auto& [axis, value] : row.values) lead.push_back(CsvCell(value));
    if (row.cells.empty()) {
      absl::StrAppend(&out, absl::StrJoin(lead, ","), ",,", CsvCell(row.state),
                      std::string(14, ','), CsvCell(row.job_id), ",", CsvCell(row.device), "\n");
      continue;
    }
    for (const VariantCell& c : row.cells) {
      absl::StrAppend(
          &out, absl::StrJoin(lead, ","), ",", CsvCell(c.variant), ",", CsvCell(row.state), ",",
          Number(c.median_seconds), ",", Number(c.ci_low_seconds), ",", Number(c.ci_high_seconds),
          ",", Number(c.relative_stddev), ",", c.samples, ",", Number(c.bytes_per_second), ",",
          Number(c.flops_per_second), ",", Number(c.fraction_of_copy_bandwidth), ",",
          Number(c.fraction_of_peak_flops), ",", Number(c.speedup_vs_first), ",",
          c.checked ? "true" : "false", ",", c.passed ? "true" : "false", ",",
          Number(c.relative_l2_error), ",", CsvCell(row.job_id), ",", CsvCell(row.device), "\n");
    }
  }
  return out;
}

std::string ToJson(const SweepTable& table) {
  google::protobuf::Struct doc;
  auto& f = *doc.mutable_fields();
  f["kernel"] = StringValue(table.kernel);
  f["device"] = StringValue(table.device);
  for (const std::string& d : table.devices) {
    *f["devices"].mutable_list_value()->add_values() = StringValue(d);
  }
  for (const std::string& a : table.axes)
    *f["axes"].mutable_list_value()->add_values() = StringValue(a);
  for (const std::string& v : table.variants) {
    *f["variants"].mutable_list_value()->add_values() = StringValue(v);
  }
  auto& ceilings = *f["ceilings"].mutable_struct_value()->mutable_fields();
  if (table.peer_bandwidth_bytes_per_second > 0) {
    ceilings["peer_bandwidth_bytes_per_second"] =
        NumberValue(table.peer_bandwidth_bytes_per_second);
  }
  if (table.copy_bandwidth_bytes_per_second > 0) {
    ceilings["copy_bandwidth_bytes_per_second"] =
        NumberValue(table.copy_bandwidth_bytes_per_second);
  }
  for (const Ceiling& c : table.peak_flops) ceilings[c.label] = NumberValue(c.value);
  auto* points = f["points"].mutable_list_value();
  for (const PointRow& row : table.rows) *points->add_values() = RowJson(row);
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(doc, &json, options);
  return json;
}

}  // namespace kbench::report
