// Pairing two profiles' kernels and ranking what changed between them.
#include "client/explain/explain_change.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/explain/kernel_facts.h"
#include "client/explain/quantities.h"
#include "client/explain/sass_opcodes.h"
#include "client/format/units.h"

namespace kbench::client::explain {
namespace {

// At most this many opcodes in the SASS finding; all of them are in sass_changes.
constexpr int kSassFindingOpcodes = 8;

struct KernelPair {
  const KernelFacts* baseline;
  const KernelFacts* candidate;
};

// One change of one kernel, with the group that orders it before its weight.
struct RankedChange {
  QuantityGroup group;
  v1::KernelChange change;
};

const KernelFacts* Named(const std::vector<KernelFacts>& kernels, const std::string& name) {
  for (const KernelFacts& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

double TotalSeconds(const std::vector<KernelFacts>& kernels) {
  double total = 0;
  for (const KernelFacts& k : kernels) total += k.total_seconds;
  return total;
}

// The kernels on both sides, the one whose GPU time changed most first.
std::vector<KernelPair> PairKernels(const std::vector<KernelFacts>& b,
                                    const std::vector<KernelFacts>& c) {
  std::vector<KernelPair> pairs;
  for (const KernelFacts& k : b) {
    if (const KernelFacts* other = Named(c, k.name)) pairs.push_back({&k, other});
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const KernelPair& x, const KernelPair& y) {
    return std::fabs(x.candidate->total_seconds - x.baseline->total_seconds) >
           std::fabs(y.candidate->total_seconds - y.baseline->total_seconds);
  });
  return pairs;
}

v1::KernelChange MakeChange(const KernelPair& p, const std::string& quantity, double b, double c,
                            double time_share) {
  v1::KernelChange change;
  change.set_kernel(p.baseline->name);
  change.set_quantity(quantity);
  change.set_baseline(b);
  change.set_candidate(c);
  change.set_change_percent(b != 0 ? 100 * (c / b - 1) : 0);
  change.set_weight(time_share * ChangeMagnitude(b, c));
  return change;
}

// "0" rather than "0 B": "spills 0 → 24 B" reads at a glance.
std::string Value(const Quantity& q, double v) { return v == 0 ? "0" : q.format(v); }

// A quantity of the table, when both sides measured it and it moved enough.
std::optional<RankedChange> CompareQuantity(const Quantity& q, const KernelPair& p,
                                            double time_share) {
  const std::optional<double>& b = p.baseline->*q.value;
  const std::optional<double>& c = p.candidate->*q.value;
  if (!b || !c) return std::nullopt;
  const bool moved = q.relative
                         ? std::fabs(*c - *b) >= kMinRelativeChange * std::fabs(*b) && *c != *b
                         : std::fabs(*c - *b) >= q.min_absolute_change;
  if (!moved) return std::nullopt;
  RankedChange r{q.group, MakeChange(p, q.id, *b, *c, time_share)};
  r.change.set_finding(
      q.relative && *b > 0
          ? absl::StrCat(FormatChangePercent(r.change.change_percent()), " ", q.label)
          : absl::StrCat(q.label, " ", Value(q, *b), " → ", Value(q, *c)));
  return r;
}

// Stall reasons whose share of all stalls moved by kMinStallShareChange or more. A reason
// outside one side's top list counts as 0 there.
void CompareStalls(const KernelPair& p, double time_share, std::vector<RankedChange>* out) {
  if (!p.baseline->ncu || !p.candidate->ncu) return;
  std::set<std::string> reasons;
  for (const auto& [r, s] : p.baseline->stall_shares) reasons.insert(r);
  for (const auto& [r, s] : p.candidate->stall_shares) reasons.insert(r);
  for (const std::string& r : reasons) {
    const auto share = [&](const KernelFacts* k) {
      auto it = k->stall_shares.find(r);
      return it == k->stall_shares.end() ? 0.0 : it->second;
    };
    const double b = share(p.baseline), c = share(p.candidate);
    if (std::fabs(c - b) < kMinStallShareChange) continue;
    RankedChange& rc = out->emplace_back();
    rc.group = QuantityGroup::kMeasured;
    rc.change = MakeChange(p, "stall:" + r, b, c, time_share);
    rc.change.set_finding(absl::StrCat(r, " stalls ", absl::StrFormat("%.0f", 100 * b), " % → ",
                                       absl::StrFormat("%.0f", 100 * c), " % of stalls"));
  }
}

std::vector<RankedChange> KernelChanges(const KernelPair& p, double time_share) {
  std::vector<RankedChange> changes;
  if (p.baseline->calls != p.candidate->calls) {
    RankedChange& r = changes.emplace_back();
    r.group = QuantityGroup::kLaunches;
    r.change = MakeChange(p, "calls", p.baseline->calls, p.candidate->calls, time_share);
    r.change.set_finding(absl::StrCat("calls ", p.baseline->calls, " → ", p.candidate->calls));
  }
  for (const Quantity& q : Quantities()) {
    if (std::optional<RankedChange> r = CompareQuantity(q, p, time_share)) {
      changes.push_back(*std::move(r));
    }
  }
  CompareStalls(p, time_share, &changes);
  std::stable_sort(changes.begin(), changes.end(), [](const auto& x, const auto& y) {
    if (x.group != y.group) return x.group < y.group;
    return x.change.weight() > y.change.weight();
  });
  return changes;
}

// "(time +25 %, 41.20 us → 51.50 us a call)", or "" when the time was not recorded.
std::string TimeNote(const KernelPair& p) {
  const double b = p.baseline->mean_seconds, c = p.candidate->mean_seconds;
  if (b <= 0 || c <= 0) return "";
  return absl::StrCat("(time ", FormatChangePercent(100 * (c / b - 1)), ", ", FormatSeconds(b),
                      " → ", FormatSeconds(c), " a call)");
}

// One line for the kernel: its findings, the first naming it, then its time.
std::string KernelLine(const KernelPair& p, const std::vector<RankedChange>& changes) {
  std::vector<std::string> parts;
  for (const RankedChange& r : changes) parts.push_back(r.change.finding());
  const std::string name = ShortKernelName(p.baseline->name);
  const std::string time = TimeNote(p);
  if (parts.empty()) {
    return absl::StrCat(name, ": no measured quantity changed by ", 100 * kMinRelativeChange,
                        " % or more ", time);
  }
  parts.front() += " in " + name;
  return absl::StrCat(absl::StrJoin(parts, "; "), time.empty() ? "" : " ", time);
}

bool TimeMoved(const KernelPair& p) {
  const double b = p.baseline->total_seconds, c = p.candidate->total_seconds;
  return b > 0 && std::fabs(c - b) >= kMinRelativeChange * b;
}

// Kernels that ran on one side only, as lines and in kernels_added/removed.
void ListUnpaired(const std::vector<KernelFacts>& b, const std::vector<KernelFacts>& c,
                  double total_seconds, v1::VariantExplanation* e) {
  const auto share = [&](const KernelFacts& k) {
    return total_seconds > 0 ? absl::StrCat(", ", FormatPercent(k.total_seconds / total_seconds),
                                            " of both sides' GPU time")
                             : std::string();
  };
  for (const KernelFacts& k : c) {
    if (Named(b, k.name) != nullptr) continue;
    e->add_kernels_added(k.name);
    e->add_findings(absl::StrCat("new kernel ", ShortKernelName(k.name), " (", k.calls, " calls, ",
                                 FormatSeconds(k.mean_seconds), " a call", share(k), ")"));
  }
  for (const KernelFacts& k : b) {
    if (Named(c, k.name) != nullptr) continue;
    e->add_kernels_removed(k.name);
    e->add_findings(absl::StrCat("kernel ", ShortKernelName(k.name), " no longer runs (was ",
                                 k.calls, " calls, ", FormatSeconds(k.mean_seconds), " a call",
                                 share(k), ")"));
  }
}

bool AnyNcu(const std::vector<KernelFacts>& kernels) {
  return std::any_of(kernels.begin(), kernels.end(), [](const KernelFacts& k) { return k.ncu; });
}

void NoteUnmeasured(const std::vector<KernelFacts>& b, const std::vector<KernelFacts>& c,
                    v1::VariantExplanation* e) {
  if (b.empty() || c.empty()) {
    e->add_not_measured(absl::StrCat("kernels: the ", b.empty() ? "baseline's" : "candidate's",
                                     " profile recorded none"));
  }
  const bool ncu_b = AnyNcu(b), ncu_c = AnyNcu(c);
  if (ncu_b && ncu_c) return;
  e->add_not_measured(absl::StrCat(NcuQuantityLabels(), ": no Nsight Compute metrics in ",
                                   !ncu_b && !ncu_c ? "either profile"
                                   : !ncu_b         ? "the baseline's profile"
                                                    : "the candidate's profile"));
}

void AddSassChanges(const SassTexts& sass, v1::VariantExplanation* e) {
  const std::vector<v1::OpcodeCountChange> changes =
      DiffOpcodes(SassOpcodeHistogram(sass.baseline), SassOpcodeHistogram(sass.candidate));
  for (const v1::OpcodeCountChange& c : changes) *e->add_sass_changes() = c;
  e->add_findings(changes.empty()
                      ? "SASS: the same opcode counts"
                      : absl::StrCat("SASS: ", FormatOpcodeChanges(changes, kSassFindingOpcodes)));
}

}  // namespace

v1::VariantExplanation ExplainChange(const v1::ProfileResult& baseline,
                                     const v1::ProfileResult& candidate,
                                     const std::optional<SassTexts>& sass) {
  v1::VariantExplanation e;
  const std::vector<KernelFacts> b = KernelFactsOf(baseline), c = KernelFactsOf(candidate);
  const double total_seconds = TotalSeconds(b) + TotalSeconds(c);
  ListUnpaired(b, c, total_seconds, &e);
  const std::vector<KernelPair> pairs = PairKernels(b, c);
  for (const KernelPair& p : pairs) {
    const double share =
        total_seconds > 0 ? (p.baseline->total_seconds + p.candidate->total_seconds) / total_seconds
                          : 1.0 / static_cast<double>(pairs.size());
    const std::vector<RankedChange> changes = KernelChanges(p, share);
    if (changes.empty() && !TimeMoved(p)) continue;
    for (const RankedChange& r : changes) *e.add_changes() = r.change;
    e.add_findings(KernelLine(p, changes));
  }
  NoteUnmeasured(b, c, &e);
  if (sass.has_value()) AddSassChanges(*sass, &e);
  return e;
}

}  // namespace kbench::client::explain
