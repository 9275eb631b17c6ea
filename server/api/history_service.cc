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
  filter.limit =
      request.page_size() == 0 ? kDefaultPageSize : std::min(request.page_size(), kMaxPageSize);
  if (!request.page_token().empty()) {
    KBENCH_ASSIGN_OR_RETURN(filter.before_seq, DecodePageToken(request.page_token()));
  }
  return filter;
}

// A variant as a leaderboard ranks it: catalogue name, or user variant name plus module.
using Contender = std::pair<std::string, std::string>;

// The fastest counted row of each contender at each shape.
std::map<Contender, std::map<std::string, store::IndexedResult>> BestPerShape(
    const std::vector<store::IndexedResult>& rows) {
  std::map<Contender, std::map<std::string, store::IndexedResult>> best;
  for (const store::IndexedResult& r : rows) {
    auto& at_shape = best[{r.variant, r.module_sha256}];
    auto it = at_shape.find(r.shape);
    if (it == at_shape.end() || r.median_seconds < it->second.median_seconds) {
      at_shape[r.shape] = r;
    }
  }
  return best;
}

v1::LeaderboardEntry EntryOf(const Contender& who,
                             const std::map<std::string, store::IndexedResult>& at_shape,
                             const v1::GetLeaderboardRequest& request,
                             const std::vector<std::string>& shapes) {
  v1::LeaderboardEntry entry;
  entry.set_variant(who.first);
  entry.set_module_sha256(who.second);
  double log_sum = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    auto it = at_shape.find(shapes[i]);
    if (it == at_shape.end()) {
      *entry.add_missing_shapes() = request.shapes(static_cast<int>(i));
      continue;
    }
    v1::LeaderboardPoint* p = entry.add_points();
    *p->mutable_shape() = request.shapes(static_cast<int>(i)).dims();
    p->set_median_seconds(it->second.median_seconds);
    p->set_job_id(it->second.job_id);
    p->set_owner(it->second.owner);
    *p->mutable_finish_time() = TimestampOf(it->second.finish_time_ns);
    log_sum += std::log(it->second.median_seconds);
  }
  if (entry.missing_shapes_size() == 0) {
    entry.set_geomean_median_seconds(std::exp(log_sum / static_cast<double>(shapes.size())));
  }
  return entry;
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
  std::vector<v1::LeaderboardEntry> ranked;
  for (const auto& [who, at_shape] : BestPerShape(rows)) {
    v1::LeaderboardEntry entry = EntryOf(who, at_shape, request, filter.shapes);
    if (entry.missing_shapes_size() > 0) {
      *response->add_incomplete() = std::move(entry);
    } else {
      ranked.push_back(std::move(entry));
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.geomean_median_seconds() < b.geomean_median_seconds();
  });
  for (size_t i = 0; i < ranked.size(); ++i) {
    ranked[i].set_rank(static_cast<int32_t>(i + 1));
    *response->add_ranked() = std::move(ranked[i]);
  }
  return absl::OkStatus();
}

}  // namespace kbench::api
