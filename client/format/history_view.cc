// History and leaderboard tables.
#include "client/format/history_view.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "client/args.h"
#include "client/format/conditions_view.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "client/verdict/history_noise.h"
#include "common/interval.h"

namespace kbench::client {
namespace {

// UTC, so that a history reads the same from every workstation.
std::string FormatDate(const google::protobuf::Timestamp& t) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixSeconds(t.seconds()),
                          absl::UTCTimeZone());
}

std::string Shape(const google::protobuf::RepeatedField<int64_t>& dims) {
  return ShapeString({dims.begin(), dims.end()});
}

std::string Flags(const v1::HistoryEntry& e) {
  std::vector<std::string> flags;
  if (!e.correct()) flags.push_back("unchecked/failed");
  if (e.impossible()) flags.push_back("impossible");
  // Contention (another process seen) is one reason a window is unclean: named once.
  if (e.contended()) flags.push_back("contended");
  if (!e.clean() && !e.contended()) flags.push_back("unclean");
  return flags.empty() ? "ok" : absl::StrJoin(flags, ",");
}

// The key's measure mode, with its buffer placements when it pooled several.
std::string ModeAndPlacements(const v1::ResultKey& k) {
  if (k.placements() <= 1) return ModeName(k.mode());
  return absl::StrCat(ModeName(k.mode()), " x", k.placements(), " placements");
}

std::string VariantName(const std::string& variant, const std::string& module_sha256) {
  if (module_sha256.empty()) return variant;
  return absl::StrCat(variant, "@", module_sha256.substr(0, 12));
}

// One line per key with enough counted results: its between-job noise, which kbctl diff tests a
// change of a baseline of that key against (common/stats/between_job_noise.h).
std::string SpreadLines(const v1::ListHistoryResponse& history) {
  std::string out;
  for (const auto& [key, medians] : CountedMediansByKey(history)) {
    const analysis::BetweenJobNoise noise = analysis::EstimateBetweenJobNoise(medians);
    if (!noise.Known()) continue;
    absl::StrAppend(&out, "spread of ", VariantName(key->variant(), key->module_sha256()), " ",
                    Shape(key->shape()), " ", DTypeName(key->dtype()), " ", ModeAndPlacements(*key),
                    " on ", key->device_model(), ": ", noise.results,
                    " counted results since its last step (", noise.results_before_step,
                    " before), between-job noise ",
                    absl::StrFormat("%.2f%%", 100 * std::expm1(noise.sigma_log)),
                    " (a robust standard deviation of one result; kbctl diff tests a change "
                    "against it)\n");
  }
  return out;
}

// The 95 % interval's larger half, relative to the median: "±0.09%"; "-" without one.
std::string HalfWidthCell(const v1::HistoryEntry& e) {
  const std::optional<double> half = kbench::RelativeHalfWidth(
      e.median_seconds(), e.median_ci_low_seconds(), e.median_ci_high_seconds());
  return half ? absl::StrFormat("±%.2f%%", 100 * *half) : "-";
}

}  // namespace

std::string RenderHistory(const v1::ListHistoryResponse& history) {
  bool any_energy = false;
  for (const v1::HistoryEntry& e : history.entries()) any_energy |= e.has_joules_per_launch();
  std::vector<std::string> headers = {"FINISHED (UTC)", "JOB",    "VARIANT", "SHAPE",  "MODE",
                                      "DEVICE",         "MEDIAN", "±95%",    "95% CI", "SAMPLES"};
  if (any_energy) headers.push_back("J/LAUNCH");
  headers.insert(headers.end(), {"FLAGS", "OWNER"});
  Table table(headers);
  for (size_t column : {6, 7, 8, 9}) table.AlignRight(column);
  if (any_energy) table.AlignRight(10).WideOnly(10);
  // The interval as its relative half-width by default, its ends with -o wide; the device with
  // its model, the sample count and the owner: -o wide too (100 columns otherwise).
  table.WideOnly(5).WideOnly(8).WideOnly(9).WideOnly(headers.size() - 1);
  for (const v1::HistoryEntry& e : history.entries()) {
    const v1::ResultKey& k = e.key();
    std::vector<std::string> row = {FormatDate(e.finish_time()),
                                    e.job_id(),
                                    VariantName(k.variant(), k.module_sha256()),
                                    absl::StrCat(Shape(k.shape()), " ", DTypeName(k.dtype())),
                                    ModeAndPlacements(k),
                                    absl::StrCat(e.device(), " (", k.device_model(), ")"),
                                    FormatSeconds(e.median_seconds()),
                                    HalfWidthCell(e),
                                    absl::StrCat(FormatSeconds(e.median_ci_low_seconds()), " .. ",
                                                 FormatSeconds(e.median_ci_high_seconds())),
                                    absl::StrCat(e.samples())};
    if (any_energy) {
      row.push_back(e.has_joules_per_launch() ? FormatJoules(e.joules_per_launch()) : "-");
    }
    row.insert(row.end(), {Flags(e), e.owner()});
    table.AddRow(row);
  }
  return absl::StrCat(table.Render(), SpreadLines(history));
}

namespace {

bool IsRankedBoard(const v1::GetLeaderboardResponse& board) {
  for (const v1::LeaderboardEntry& e : board.ranked()) {
    for (const v1::LeaderboardPoint& p : e.points()) {
      if (p.runs() > 0) return true;
    }
  }
  return false;
}

// "=2" for a tie with the entry above, "3*" for a provisional rank (some shape has no run that
// kbenchd re-ran itself to confirm it).
std::string RankText(const v1::LeaderboardEntry& e) {
  return absl::StrCat(e.tied() ? "=" : "", e.rank(), e.final() ? "" : "*");
}

std::string Interval(double low, double high) {
  return absl::StrCat("[", FormatSeconds(low), ", ", FormatSeconds(high), "]");
}

Table RankedTable(const v1::GetLeaderboardResponse& board) {
  Table t({"RANK", "VARIANT", "GEOMEAN", "95% INTERVAL", "SHAPE", "MEDIAN", "RUNS", "JOB"});
  for (size_t column : {0, 2, 5, 6}) t.AlignRight(column);
  for (const v1::LeaderboardEntry& e : board.ranked()) {
    for (int i = 0; i < e.points_size(); ++i) {
      const v1::LeaderboardPoint& p = e.points(i);
      const bool first = i == 0;
      t.AddRow({first ? RankText(e) : "", first ? VariantName(e.variant(), e.module_sha256()) : "",
                first ? FormatSeconds(e.geomean_median_seconds()) : "",
                first ? Interval(e.geomean_ci_low_seconds(), e.geomean_ci_high_seconds()) : "",
                Shape(p.shape()), FormatSeconds(p.median_seconds()),
                absl::StrCat(p.runs(), p.confirmed() ? " (confirmed)" : ""), p.job_id()});
    }
  }
  return t;
}

Table BestOfTable(const v1::GetLeaderboardResponse& board) {
  Table t({"RANK", "VARIANT", "GEOMEAN", "SHAPE", "MEDIAN", "JOB", "OWNER", "DATE (UTC)"});
  for (size_t column : {0, 2, 4}) t.AlignRight(column);
  for (const v1::LeaderboardEntry& e : board.ranked()) {
    for (int i = 0; i < e.points_size(); ++i) {
      const v1::LeaderboardPoint& p = e.points(i);
      const bool first = i == 0;
      t.AddRow({first ? absl::StrCat(e.rank()) : "",
                first ? VariantName(e.variant(), e.module_sha256()) : "",
                first ? FormatSeconds(e.geomean_median_seconds()) : "", Shape(p.shape()),
                FormatSeconds(p.median_seconds()), p.job_id(), p.owner(),
                FormatDate(p.finish_time())});
    }
  }
  return t;
}

// A board by energy: the geomean of joules per launch ranks, time is shown beside it.
Table EnergyTable(const v1::GetLeaderboardResponse& board) {
  Table t({"RANK", "VARIANT", "GEOMEAN J/LAUNCH", "SHAPE", "J/LAUNCH", "MEDIAN", "JOB"});
  for (size_t column : {0, 2, 4, 5}) t.AlignRight(column);
  for (const v1::LeaderboardEntry& e : board.ranked()) {
    for (int i = 0; i < e.points_size(); ++i) {
      const v1::LeaderboardPoint& p = e.points(i);
      const bool first = i == 0;
      t.AddRow({first ? absl::StrCat(e.rank(), e.final() || !IsRankedBoard(board) ? "" : "*") : "",
                first ? VariantName(e.variant(), e.module_sha256()) : "",
                first ? FormatJoules(e.geomean_joules_per_launch()) : "", Shape(p.shape()),
                p.has_joules_per_launch() ? FormatJoules(p.joules_per_launch()) : "-",
                FormatSeconds(p.median_seconds()), p.job_id()});
    }
  }
  return t;
}

}  // namespace

std::string RenderLeaderboard(const v1::GetLeaderboardResponse& board, bool by_energy) {
  std::string out = absl::StrCat("device model: ", board.device_model(), "\n");
  const bool ranked_board = IsRankedBoard(board);
  if (by_energy) {
    absl::StrAppend(&out,
                    ranked_board ? "ranked runs only, each variant by its median run's energy"
                                 : "every counted result, each variant by its least energy",
                    " per launch at each shape (no intervals, so no ties); only results whose "
                    "energy was measured\n");
  } else if (ranked_board) {
    absl::StrAppend(&out,
                    "ranked runs only; =N: tied (intervals overlap), N*: provisional (not yet "
                    "confirmed by kbenchd's own re-run at every shape)\n");
  } else {
    absl::StrAppend(&out, "every counted result, each variant by its best (not ranked runs)\n");
  }
  Table ranked = by_energy      ? EnergyTable(board)
                 : ranked_board ? RankedTable(board)
                                : BestOfTable(board);
  absl::StrAppend(&out, ranked.Render());
  if (board.incomplete_size() > 0) {
    absl::StrAppend(&out, "\nnot ranked (a shape has no counted result):\n");
    Table incomplete({"VARIANT", "MEASURED", "MISSING"});
    for (const v1::LeaderboardEntry& e : board.incomplete()) {
      std::vector<std::string> measured;
      for (const v1::LeaderboardPoint& p : e.points()) measured.push_back(Shape(p.shape()));
      std::vector<std::string> missing;
      for (const v1::Shape& s : e.missing_shapes()) missing.push_back(Shape(s.dims()));
      incomplete.AddRow({VariantName(e.variant(), e.module_sha256()),
                         measured.empty() ? "-" : absl::StrJoin(measured, ","),
                         absl::StrJoin(missing, ",")});
    }
    absl::StrAppend(&out, incomplete.Render());
  }
  return out;
}

}  // namespace kbench::client
