// The HTML page of `kbctl diff -f` (common/report/diff_report.h), from a comparison and
// explanations with known numbers and hostile names.
#include "common/report/diff_report.h"

#include <string>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"

namespace kbench::report {
namespace {

v1::ExplainedComparison SpillingDiff() {
  v1::ExplainedComparison d;
  v1::JobComparison* c = d.mutable_comparison();
  c->set_baseline_job_id("j-a");
  c->set_candidate_job_id("j-b");
  v1::VariantComparison* v = c->add_variants();
  v->set_baseline_variant("@rows8k");
  v->set_candidate_variant("@rows8k");
  v->set_baseline_median_seconds(71.3e-6);
  v->set_candidate_median_seconds(102.4e-6);
  v->set_change_percent(43.58);
  v->set_change_ci_low_percent(40.1);
  v->set_change_ci_high_percent(47.2);
  v->set_resolvable_effect_percent(0.6);
  v->set_min_effect_percent(3);
  v->set_adjusted_p_value(1e-6);
  v->set_verdict(v1::VERDICT_SLOWER);
  v->set_reason("slower by more than 3.00 %");
  v1::VariantExplanation* e = d.add_explanations();
  e->set_baseline_variant("@rows8k");
  e->set_candidate_variant("@rows8k");
  e->set_verdict(v1::VERDICT_SLOWER);
  e->set_change_percent(43.58);
  e->set_baseline_profile_job_id("j-p1");
  e->set_candidate_profile_job_id("j-p2");
  e->add_findings("local-memory bytes 0 → 248.0 MiB in softmax_rows8k");
  e->add_findings("registers 48 → 32");
  v1::KernelChange* k = e->add_changes();
  k->set_kernel("softmax_rows8k");
  k->set_quantity("registers");
  k->set_baseline(48);
  k->set_candidate(32);
  k->set_change_percent(-33.3);
  v1::OpcodeCountChange* o = e->add_sass_changes();
  o->set_opcode("LDL");
  o->set_baseline(0);
  o->set_candidate(38);
  e->add_not_measured("SASS of the baseline: not readable");
  return d;
}

TEST(DiffReport, ShowsEachVerdictWithItsReasonAndEveryPartOfTheExplanation) {
  const std::string html = RenderDiffReport(SpillingDiff(), "2026-11-27 06:00:00 UTC", true);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>Diff of j-b against j-a</title>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l fail\">SLOWER</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("+43.58 %"), std::string::npos);
  EXPECT_NE(html.find("[+40.10 %, +47.20 %]"), std::string::npos);
  EXPECT_NE(html.find("±0.60 %"), std::string::npos);
  EXPECT_NE(html.find("71.3 us"), std::string::npos);
  EXPECT_NE(html.find("slower by more than 3.00 %"), std::string::npos);
  EXPECT_NE(html.find("Why @rows8k is SLOWER (+43.58 %)"), std::string::npos) << html;
  EXPECT_NE(html.find("Profiles j-p1 (baseline) and j-p2 (candidate)"), std::string::npos);
  // Findings in their rank order, then the quantities, the SASS and what was not measured.
  const size_t spill = html.find("<li>local-memory bytes 0 → 248.0 MiB in softmax_rows8k</li>");
  const size_t registers = html.find("<li>registers 48 → 32</li>");
  ASSERT_NE(spill, std::string::npos);
  ASSERT_NE(registers, std::string::npos);
  EXPECT_LT(spill, registers);
  EXPECT_NE(html.find("<td class=\"l\">LDL</td><td>0</td><td>38</td><td>+38</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("-33.30 %"), std::string::npos);
  EXPECT_NE(html.find("<h4>Not measured</h4><ul><li>SASS of the baseline: not readable</li>"),
            std::string::npos);
  EXPECT_NE(html.find("Generated 2026-11-27 06:00:00 UTC"), std::string::npos);
  EXPECT_EQ(absl::AsciiStrToLower(html).find("<script"), std::string::npos);
}

TEST(DiffReport, NamesAndFindingsAreTextNotMarkup) {
  v1::ExplainedComparison d = SpillingDiff();
  d.mutable_comparison()->mutable_variants(0)->set_baseline_variant("@</td><script>x()</script>");
  d.mutable_comparison()->mutable_variants(0)->set_reason("<img src=x onerror=y()>");
  d.mutable_explanations(0)->set_findings(0, "<script>alert(1)</script> in k");
  d.mutable_explanations(0)->mutable_changes(0)->set_kernel("k<b>");
  const std::string html = RenderDiffReport(d, "", true);
  EXPECT_EQ(absl::AsciiStrToLower(html).find("<script"), std::string::npos) << html;
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("k<b>"), std::string::npos);
  EXPECT_NE(html.find("@&lt;/td&gt;&lt;script&gt;x()&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; in k"), std::string::npos);
}

TEST(DiffReport, SaysWhyThereIsNothingToExplainAndOmitsTheSectionWhenNotAsked) {
  v1::ExplainedComparison d = SpillingDiff();
  d.clear_explanations();
  d.mutable_comparison()->mutable_variants(0)->set_verdict(v1::VERDICT_UNSURE);
  const std::string asked = RenderDiffReport(d, "", true);
  EXPECT_NE(asked.find("<td class=\"l\">UNSURE</td>"), std::string::npos) << asked;
  EXPECT_NE(asked.find("Nothing to explain: no variant is FASTER or SLOWER"), std::string::npos);
  const std::string plain = RenderDiffReport(d, "", false);
  EXPECT_EQ(plain.find("What changed in the kernels"), std::string::npos);
  EXPECT_EQ(plain.find("Nothing to explain"), std::string::npos);
  EXPECT_NE(plain.find("</main></body></html>"), std::string::npos);
}

}  // namespace
}  // namespace kbench::report
