// History pages and leaderboards from the result index.
#include "server/api/history_service.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/stats/descriptive.h"
#include "common/status_macros.h"
#include "server/api/page_token.h"
#include "server/common/result_key.h"

namespace kbench::api {
namespace {

constexpr int32_t kDefaultPageSize = 50;
constexpr int32_t kMaxPageSize = 1000;
constexpr int kMaxLeaderboardShapes = 64;

google::protobuf::Timestamp TimestampOf(int64_t unix_ns) {
  google::protobuf::Timestamp t;
  t.set_seconds(unix_ns / 1'000'000'000);
  t.set_nanos(static_cast<int32_t>(unix_ns % 1'000'000'000));
  return t;
}

void FillKey(const store::IndexedResult& r, v1::ResultKey* key) {
  key->set_kernel(r.kernel);
  key->set_variant(r.variant);
  key->set_module_sha256(r.module_sha256);
  if (absl::StatusOr<std::vector<int64_t>> shape = result_key::ParseShapeText(r.shape);
      shape.ok()) {
    key->mutable_shape()->Assign(shape->begin(), shape->end());
  }
  key->set_dtype(result_key::DTypeFromText(r.dtype));
  result_key::ParseParamsText(r.params, key->mutable_params());
  key->set_mode(result_key::ModeFromText(r.mode));
  key->set_placements(static_cast<int32_t>(r.placements));
  key->set_device_model(r.device_model);
  key->set_driver_version(r.driver_version);
  key->set_kbench_version(r.kbench_version);
}

void FillEntry(const store::IndexedResult& r, v1::HistoryEntry* e) {
  FillKey(r, e->mutable_key());
  e->set_job_id(r.job_id);
  e->set_owner(r.owner);
  e->set_device(r.device);
  *e->mutable_finish_time() = TimestampOf(r.finish_time_ns);
  e->set_median_seconds(r.median_seconds);
  e->set_median_ci_low_seconds(r.median_ci_low_seconds);
  e->set_median_ci_high_seconds(r.median_ci_high_seconds);
  e->set_samples(r.samples);
  e->set_correct(r.correct);
  e->set_impossible(r.impossible);
  e->set_contended(r.contended);
  e->set_custom_stopping(r.custom_stopping);
  e->set_clean(r.clean);
  if (r.joules_per_launch > 0) e->set_joules_per_launch(r.joules_per_launch);
}

absl::Status CheckEnums(v1::DType dtype, v1::MeasureMode mode) {
  if (!v1::DType_IsValid(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat("dtype: unknown enum value ", dtype));
  }
  if (!v1::MeasureMode_IsValid(mode)) {
    return absl::InvalidArgumentError(absl::StrCat("mode: unknown enum value ", mode));
  }
  return absl::OkStatus();
}

absl::StatusOr<store::HistoryFilter> HistoryFilterOf(const v1::ListHistoryRequest& request) {
  if (request.kernel().empty()) return absl::InvalidArgumentError("kernel: required");
  if (request.page_size() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: ", request.page_size(), " is negative"));
  }
  KBENCH_RETURN_IF_ERROR(CheckEnums(request.dtype(), request.mode()));
  store::HistoryFilter filter;
  filter.kernel = request.kernel();
  filter.variant = request.variant();
  filter.shape = result_key::ShapeText(request.shape());
  filter.dtype = result_key::DTypeText(request.dtype());
  filter.device = request.device();
  filter.mode = result_key::ModeText(request.mode());
  filter.include_unclean = request.include_unclean();
  filter.limit =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  if (!request.page_token().empty()) {
    KBENCH_ASSIGN_OR_RETURN(filter.before_seq, DecodePageToken(request.page_token()));
  }
  return filter;
}

// A variant as a leaderboard ranks it: catalogue name, or user variant name plus module.
using Contender = std::pair<std::string, std::string>;

// What a board ranks by: a result's median time, or (by_energy) its energy per launch.
struct BoardMetric {
  bool energy = false;
  double Of(const store::IndexedResult& r) const {
    return energy ? r.joules_per_launch : r.median_seconds;
  }
};

// A contender's value at one shape: its best row (boards that include unranked results), or the
// median of its ranked runs with an interval that holds every run's (issue 23: never the best
// of N, which rewards the luckiest draw and whoever submits most often).
struct ShapePoint {
  store::IndexedResult row;  // the best run, or the ranked run closest to the median
  double median = 0, ci_low = 0, ci_high = 0;
  int32_t runs = 0;
  bool confirmed = false;  // a run kbenchd re-ran itself is among them
  double joules = 0;       // the board's metric by energy; else the chosen row's, 0 if none
};

ShapePoint BestOf(const std::vector<store::IndexedResult>& rows, const BoardMetric& metric) {
  const auto best = std::min_element(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return metric.Of(a) < metric.Of(b);
  });
  return {*best,
          best->median_seconds,
          best->median_ci_low_seconds,
          best->median_ci_high_seconds,
          static_cast<int32_t>(rows.size()),
          false,
          best->joules_per_launch};
}

ShapePoint MedianOfRuns(const std::vector<store::IndexedResult>& rows, const BoardMetric& metric) {
  std::vector<double> values;
  for (const store::IndexedResult& r : rows) values.push_back(metric.Of(r));
  const double middle = analysis::MedianInPlace(values);
  ShapePoint p;
  p.runs = static_cast<int32_t>(rows.size());
  p.row = *std::min_element(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return std::abs(metric.Of(a) - middle) < std::abs(metric.Of(b) - middle);
  });
  p.median = metric.energy ? p.row.median_seconds : middle;
  p.joules = metric.energy ? middle : p.row.joules_per_launch;
  p.ci_low = rows.front().median_ci_low_seconds;
  p.ci_high = rows.front().median_ci_high_seconds;
  for (const store::IndexedResult& r : rows) {
    p.ci_low = std::min(p.ci_low, r.median_ci_low_seconds);
    p.ci_high = std::max(p.ci_high, r.median_ci_high_seconds);
    p.confirmed = p.confirmed || r.confirmation;
  }
  return p;
}

// Each contender's point at each shape.
std::map<Contender, std::map<std::string, ShapePoint>> PointsPerShape(
    const std::vector<store::IndexedResult>& rows, bool ranked, const BoardMetric& metric) {
  std::map<Contender, std::map<std::string, std::vector<store::IndexedResult>>> runs;
  for (const store::IndexedResult& r : rows)
    runs[{r.variant, r.module_sha256}][r.shape].push_back(r);
  std::map<Contender, std::map<std::string, ShapePoint>> points;
  for (const auto& [who, at_shape] : runs) {
    for (const auto& [shape, shape_rows] : at_shape) {
      points[who][shape] = ranked ? MedianOfRuns(shape_rows, metric) : BestOf(shape_rows, metric);
    }
  }
  return points;
}

v1::LeaderboardEntry EntryOf(const Contender& who,
                             const std::map<std::string, ShapePoint>& at_shape,
                             const v1::GetLeaderboardRequest& request,
                             const std::vector<std::string>& shapes, bool ranked) {
  v1::LeaderboardEntry entry;
  entry.set_variant(who.first);
  entry.set_module_sha256(who.second);
  double log_sum = 0, log_low = 0, log_high = 0, log_joules = 0;
  bool all_confirmed = true;
  bool all_energy = true;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto it = at_shape.find(shapes[i]);
    if (it == at_shape.end()) {
      *entry.add_missing_shapes() = request.shapes(static_cast<int>(i));
      continue;
    }
    const ShapePoint& point = it->second;
    v1::LeaderboardPoint* p = entry.add_points();
    *p->mutable_shape() = request.shapes(static_cast<int>(i)).dims();
    p->set_median_seconds(point.median);
    p->set_job_id(point.row.job_id);
    p->set_owner(point.row.owner);
    *p->mutable_finish_time() = TimestampOf(point.row.finish_time_ns);
    if (ranked) {
      p->set_runs(point.runs);
      p->set_ci_low_seconds(point.ci_low);
      p->set_ci_high_seconds(point.ci_high);
      p->set_confirmed(point.confirmed);
    }
    if (point.joules > 0) p->set_joules_per_launch(point.joules);
    all_confirmed = all_confirmed && point.confirmed;
    all_energy = all_energy && point.joules > 0;
    log_joules += point.joules > 0 ? std::log(point.joules) : 0;
    log_sum += std::log(point.median);
    log_low += std::log(std::max(point.ci_low, 1e-300));
    log_high += std::log(std::max(point.ci_high, 1e-300));
  }
  if (entry.missing_shapes_size() == 0) {
    const double n = static_cast<double>(shapes.size());
    entry.set_geomean_median_seconds(std::exp(log_sum / n));
    if (all_energy) entry.set_geomean_joules_per_launch(std::exp(log_joules / n));
    if (ranked) {
      entry.set_geomean_ci_low_seconds(std::exp(log_low / n));
      entry.set_geomean_ci_high_seconds(std::exp(log_high / n));
      entry.set_final(all_confirmed);
    }
  }
  return entry;
}

// Ranks sorted entries 1, 2, ...; on a ranked board an entry whose interval overlaps the one
// before it cannot be told apart from it: it is tied and shares its rank.
void AssignRanks(bool ranked, std::vector<v1::LeaderboardEntry>* entries) {
  for (size_t i = 0; i < entries->size(); ++i) {
    v1::LeaderboardEntry& e = (*entries)[i];
    e.set_rank(static_cast<int32_t>(i + 1));
    if (!ranked || i == 0) continue;
    const v1::LeaderboardEntry& before = (*entries)[i - 1];
    if (e.geomean_ci_low_seconds() <= before.geomean_ci_high_seconds()) {
      e.set_tied(true);
      e.set_rank(before.rank());
    }
  }
}

absl::StatusOr<store::LeaderboardFilter> LeaderboardFilterOf(
    const DeviceModelOf& model_of, const v1::GetLeaderboardRequest& request) {
  if (request.kernel().empty()) return absl::InvalidArgumentError("kernel: required");
  if (request.shapes_size() < 1 || request.shapes_size() > kMaxLeaderboardShapes) {
    return absl::InvalidArgumentError(absl::StrCat("shapes: between 1 and ", kMaxLeaderboardShapes,
                                                   " needed, got ", request.shapes_size()));
  }
  KBENCH_RETURN_IF_ERROR(CheckEnums(request.dtype(), request.mode()));
  if (request.dtype() == v1::DTYPE_UNSPECIFIED)
    return absl::InvalidArgumentError("dtype: required");
  if (request.device_model().empty()) return absl::InvalidArgumentError("device_model: required");
  store::LeaderboardFilter filter;
  filter.kernel = request.kernel();
  filter.dtype = result_key::DTypeText(request.dtype());
  filter.device_model = model_of(request.device_model());
  filter.mode = result_key::ModeText(request.mode());
  filter.ranked_only = !request.include_unranked();
  filter.include_unclean = request.include_unclean();
  filter.energy_only = request.by_energy();
  std::set<std::string> seen;
  for (int i = 0; i < request.shapes_size(); ++i) {
    const v1::Shape& shape = request.shapes(i);
    if (shape.dims_size() == 0 || *std::min_element(shape.dims().begin(), shape.dims().end()) < 1) {
      return absl::InvalidArgumentError(absl::StrCat("shapes[", i, "]: needs positive dimensions"));
    }
    std::string text = result_key::ShapeText(shape.dims());
    if (!seen.insert(text).second) {
      return absl::InvalidArgumentError(absl::StrCat("shapes[", i, "]: ", text, " given twice"));
    }
    filter.shapes.push_back(std::move(text));
  }
  return filter;
}

}  // namespace

absl::Status ListHistory(store::JobStore& jobs, const v1::ListHistoryRequest& request,
                         v1::ListHistoryResponse* response) {
  KBENCH_ASSIGN_OR_RETURN(store::HistoryFilter filter, HistoryFilterOf(request));
  const int32_t page_size = filter.limit;
  ++filter.limit;  // one more than the page tells whether another page exists
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::IndexedResult> rows, jobs.History(filter));
  for (size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<int32_t>(i) == page_size) {
      response->set_next_page_token(EncodePageToken(rows[i - 1].seq));
      break;
    }
    FillEntry(rows[i], response->add_entries());
  }
  return absl::OkStatus();
}

absl::Status GetLeaderboard(store::JobStore& jobs, const DeviceModelOf& model_of,
                            const v1::GetLeaderboardRequest& request,
                            v1::GetLeaderboardResponse* response) {
  KBENCH_ASSIGN_OR_RETURN(store::LeaderboardFilter filter, LeaderboardFilterOf(model_of, request));
  KBENCH_ASSIGN_OR_RETURN(std::vector<store::IndexedResult> rows, jobs.LeaderboardRows(filter));
  response->set_device_model(filter.device_model);
  const bool ranked_board = filter.ranked_only;
  const BoardMetric metric{request.by_energy()};
  std::vector<v1::LeaderboardEntry> ranked;
  for (const auto& [who, at_shape] : PointsPerShape(rows, ranked_board, metric)) {
    v1::LeaderboardEntry entry = EntryOf(who, at_shape, request, filter.shapes, ranked_board);
    if (entry.missing_shapes_size() > 0) {
      *response->add_incomplete() = std::move(entry);
    } else {
      ranked.push_back(std::move(entry));
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
    return metric.energy ? a.geomean_joules_per_launch() < b.geomean_joules_per_launch()
                         : a.geomean_median_seconds() < b.geomean_median_seconds();
  });
  // Energy carries no interval: a board by energy has no ties.
  AssignRanks(ranked_board && !metric.energy, &ranked);
  for (v1::LeaderboardEntry& e : ranked) *response->add_ranked() = std::move(e);
  return absl::OkStatus();
}

absl::Status HistoryService::List(const auth::Identity& /*caller*/,
                                  const v1::ListHistoryRequest& request,
                                  v1::ListHistoryResponse* response) {
  return ListHistory(*jobs_, request, response);
}

absl::Status HistoryService::Leaderboard(const auth::Identity& /*caller*/,
                                         const v1::GetLeaderboardRequest& request,
                                         v1::GetLeaderboardResponse* response) {
  auto model_of = [this](const std::string& device) { return DeviceModel(device); };
  return GetLeaderboard(*jobs_, model_of, request, response);
}

std::string HistoryService::DeviceModel(const std::string& device_or_model) {
  for (const v1::DeviceInfo& d : queue_->Devices()) {
    if (d.id() == device_or_model) return d.name();
  }
  return device_or_model;
}

}  // namespace kbench::api
