// Tables, lines and JSON of an interleaved A/B's pairs and verdict.
#include "client/format/paired_view.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "nlohmann/json.hpp"

namespace kbench::client {
namespace {

std::string PlainPercent(double percent) { return absl::StrFormat("%.3g %%", percent); }

}  // namespace

std::string SignedPercent(double percent) { return absl::StrFormat("%+.1f %%", percent); }

std::string PairedVerdictLine(const analysis::PairedVerdict& v) {
  const std::string name = analysis::VerdictName(v.verdict);
  if (v.verdict != analysis::Verdict::kUnsure) {
    return absl::StrCat(name, ": ", SignedPercent(v.change.change_percent), " [",
                        SignedPercent(v.change.low_percent), ", ",
                        SignedPercent(v.change.high_percent), "] over ", v.pairs,
                        " pairs (min effect ", PlainPercent(v.min_effect_percent), ")");
  }
  const std::string resolve =
      v.pairs_to_resolve > 0
          ? absl::StrCat("run --repeat ", v.pairs_to_resolve, " to resolve ",
                         PlainPercent(v.min_effect_percent))
          : absl::StrCat("more than ", analysis::kMaxSuggestedPairs,
                         " pairs would be needed to resolve ", PlainPercent(v.min_effect_percent));
  return absl::StrCat(name, ": the ", v.pairs, " pairs resolve ±",
                      absl::StrFormat("%.1f %%", v.resolution_percent), " (change ",
                      SignedPercent(v.change.change_percent), "); ", resolve);
}

nlohmann::json PairedVerdictJson(const analysis::PairedVerdict& v) {
  return {{"verdict", analysis::VerdictName(v.verdict)},
          {"pairs", v.pairs},
          {"change_percent", v.change.change_percent},
          {"low_percent", v.change.low_percent},
          {"high_percent", v.change.high_percent},
          {"median_change_percent", v.median_change_percent},
          {"p_value", v.p_value},
          {"resolution_percent", v.resolution_percent},
          {"min_effect_percent", v.min_effect_percent},
          {"pairs_to_resolve", v.pairs_to_resolve},
          {"summary", PairedVerdictLine(v)}};
}

std::string RenderPairedRun(const std::string& baseline, const std::string& candidate,
                            const PairedRun& run, const analysis::PairedVerdict& verdict) {
  Table table({"PAIR", "FROM", baseline, candidate, "CHANGE"});
  for (size_t col : {0, 2, 3, 4}) table.AlignRight(col);
  for (size_t k = 0; k < run.baseline_seconds.size(); ++k) {
    const double b = run.baseline_seconds[k];
    const double c = run.candidate_seconds[k];
    table.AddRow({absl::StrCat(k + 1), run.pair_sources[k], FormatSeconds(b), FormatSeconds(c),
                  SignedPercent(100 * (c / b - 1))});
  }
  return absl::StrCat("Interleaved A/B: ", candidate, " vs ", baseline, "\n", table.Render(),
                      PairedVerdictLine(verdict), "\n");
}

std::string PairedRunJson(const std::string& baseline, const std::string& candidate,
                          const PairedRun& run, const analysis::PairedVerdict& verdict) {
  nlohmann::json job_ids = nlohmann::json::array();
  for (const v1::Job& job : run.jobs) job_ids.push_back(job.id());
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t k = 0; k < run.baseline_seconds.size(); ++k) {
    pairs.push_back({{"from", run.pair_sources[k]},
                     {"baseline_seconds", run.baseline_seconds[k]},
                     {"candidate_seconds", run.candidate_seconds[k]}});
  }
  const nlohmann::json doc = {{"baseline", baseline},
                              {"candidate", candidate},
                              {"job_ids", job_ids},
                              {"pairs", pairs},
                              {"verdict", PairedVerdictJson(verdict)}};
  return doc.dump(2) + "\n";
}

}  // namespace kbench::client
