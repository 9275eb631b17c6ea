// The step table and conclusion of kbctl bisect, as text and JSON.
#include "client/format/bisect_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/format/paired_view.h"
#include "client/format/table.h"
#include "nlohmann/json.hpp"

namespace kbench::client {
namespace {

std::string Named(const std::vector<Version>& versions, int index) {
  return absl::StrCat("version ", index, " (", versions[index].label, ")");
}

std::string OutcomeName(BisectOutcome outcome) {
  switch (outcome) {
    case BisectOutcome::kFound:
      return "FOUND";
    case BisectOutcome::kNoneSlower:
      return "NONE_SLOWER";
    case BisectOutcome::kUndecided:
      return "UNDECIDED";
  }
  return "UNDECIDED";
}

}  // namespace

std::string BisectConclusion(const std::vector<Version>& versions, const BisectResult& r) {
  const std::string good = versions[0].label;
  switch (r.outcome) {
    case BisectOutcome::kFound:
      return absl::StrCat(
          Named(versions, r.culprit), " is the first slower than ", good,
          r.last_good > 0 ? absl::StrCat("; ", Named(versions, r.last_good), " is not") : "");
    case BisectOutcome::kNoneSlower:
      return absl::StrCat("no version is slower than ", good, ": the last, ",
                          Named(versions, r.last_good), ", is not");
    case BisectOutcome::kUndecided:
      return absl::StrCat(
          "cannot decide: ", Named(versions, r.undecided), " stayed UNSURE at its most pairs; ",
          "the first slower lies after ", Named(versions, r.last_good),
          r.first_slower >= 0 ? absl::StrCat(" and at or before ", Named(versions, r.first_slower))
                              : "");
  }
  return "";
}

std::string RenderBisect(const std::vector<Version>& versions, const BisectResult& r) {
  Table table({"STEP", "VERSION", "PAIRS", "CHANGE", "INTERVAL", "VERDICT", "JOBS"});
  for (size_t col : {0, 2, 3}) table.AlignRight(col);
  table.SetMaxWidth(6, 40);
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const BisectStep& s = r.steps[i];
    const analysis::PairedVerdict& v = s.verdict;
    table.AddRow({absl::StrCat(i + 1), Named(versions, s.version), absl::StrCat(v.pairs),
                  SignedPercent(v.change.change_percent),
                  absl::StrCat("[", SignedPercent(v.change.low_percent), ", ",
                               SignedPercent(v.change.high_percent), "]"),
                  analysis::VerdictName(v.verdict), absl::StrJoin(s.job_ids, ",")});
  }
  return absl::StrCat("Bisect over ", versions.size(), " versions, good: ", versions[0].label, "\n",
                      table.Render(), OutcomeName(r.outcome), ": ", BisectConclusion(versions, r),
                      "\n");
}

std::string BisectJson(const std::vector<Version>& versions, const BisectResult& r) {
  nlohmann::json labels = nlohmann::json::array();
  for (const Version& v : versions) labels.push_back(v.label);
  nlohmann::json steps = nlohmann::json::array();
  for (const BisectStep& s : r.steps) {
    steps.push_back({{"version", s.version},
                     {"label", versions[s.version].label},
                     {"job_ids", s.job_ids},
                     {"verdict", PairedVerdictJson(s.verdict)}});
  }
  const nlohmann::json doc = {{"versions", labels},
                              {"outcome", OutcomeName(r.outcome)},
                              {"culprit", r.culprit},
                              {"undecided", r.undecided},
                              {"last_good", r.last_good},
                              {"first_slower", r.first_slower},
                              {"conclusion", BisectConclusion(versions, r)},
                              {"steps", steps}};
  return doc.dump(2) + "\n";
}

}  // namespace kbench::client
