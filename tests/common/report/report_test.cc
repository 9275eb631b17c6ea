// Sweep tables, their CSV and JSON, the gnuplot plots and the HTML report, from synthetic
// results with known numbers.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/report/bounded_process.h"
#include "common/report/html_report.h"
#include "common/report/plots.h"
#include "common/report/sweep_table.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace kbench::report {
namespace {

// A point's job with two variants: `a` at `a_seconds`, `b` twice as fast; 1 MB moved, 80% of a
// 1.25 MB/s... i.e. the copy bandwidth is bytes_per_second / 0.5.
v1::Job PointJob(const std::string& id, double a_seconds) {
  v1::Job job;
  job.set_id(id);
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_device("cpu");
  job.mutable_spec()->set_kernel("reduce");
  job.mutable_spec()->set_dtype(v1::DTYPE_F32);
  for (const auto& [name, seconds] : {std::pair<std::string, double>{"a", a_seconds},
                                      std::pair<std::string, double>{"b", a_seconds / 2}}) {
    v1::VariantResult* r = job.mutable_result()->add_variants();
    r->set_variant(name);
    r->mutable_stats()->set_median_seconds(seconds);
    r->mutable_stats()->set_samples(10);
    r->set_bytes_per_second(1e6 / seconds);
    r->set_fraction_of_copy_bandwidth(1e6 / seconds / 4e9);  // a 4 GB/s ceiling
    r->mutable_correctness()->set_checked(true);
    r->mutable_correctness()->set_passed(name == "a");
    r->mutable_correctness()->set_relative_l2_error(name == "a" ? 1e-7 : 0.5);
  }
  job.mutable_result()->mutable_environment()->set_device_name("Host <CPU> & co");
  return job;
}

struct Fixture {
  v1::Sweep sweep;
  std::vector<v1::Job> jobs;
};

Fixture ThreePoints() {
  Fixture f;
  f.sweep.set_id("s-1");
  f.sweep.mutable_spec()->mutable_base()->set_kernel("reduce");
  v1::SweepAxis* axis = f.sweep.mutable_spec()->add_axes();
  axis->set_name("cols");
  axis->set_values("64:256:*2");
  for (int i = 0; i < 3; ++i) {
    v1::SweepPoint* p = f.sweep.add_points();
    p->set_index(i);
    p->set_job_id(absl::StrCat("j-", i));
    v1::AxisValue* v = p->add_values();
    v->set_axis("cols");
    v->set_value(absl::StrCat(64 << i));
    f.jobs.push_back(PointJob(p->job_id(), 1e-3 * (i + 1)));
  }
  return f;
}

TEST(SweepTable, HoldsPointsByVariantsAndRecoversTheCeiling) {
  Fixture f = ThreePoints();
  const SweepTable t = BuildSweepTable(f.sweep, f.jobs);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.variants, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.rows[2].values[0].second, "256");
  EXPECT_DOUBLE_EQ(t.rows[2].cells[1].median_seconds, 1.5e-3);
  EXPECT_NEAR(t.copy_bandwidth_bytes_per_second, 4e9, 1);
  EXPECT_EQ(t.environment.device_name(), "Host <CPU> & co");
}

TEST(SweepTable, CsvHasARowPerPointAndVariant) {
  Fixture f = ThreePoints();
  const std::string csv = ToCsv(BuildSweepTable(f.sweep, f.jobs));
  std::istringstream lines(csv);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) ++n;
  EXPECT_EQ(n, 1 + 3 * 2);
  EXPECT_NE(csv.find("2,256,b,succeeded,0.0015,"), std::string::npos) << csv;
}

TEST(SweepTable, JsonParsesAndCarriesTheNumbers) {
  Fixture f = ThreePoints();
  const nlohmann::json doc = nlohmann::json::parse(ToJson(BuildSweepTable(f.sweep, f.jobs)));
  ASSERT_EQ(doc["points"].size(), 3u);
  EXPECT_EQ(doc["points"][1]["values"]["cols"], "128");
  EXPECT_DOUBLE_EQ(doc["points"][1]["variants"][0]["median_seconds"].get<double>(), 2e-3);
  EXPECT_NEAR(doc["ceilings"]["copy_bandwidth_bytes_per_second"].get<double>(), 4e9, 1);
}

TEST(SweepTable, OneDeviceIsNamedOnceWithoutAWarning) {
  Fixture f = ThreePoints();
  const SweepTable t = BuildSweepTable(f.sweep, f.jobs);
  EXPECT_EQ(t.devices, std::vector<std::string>{"cpu"});
  EXPECT_EQ(t.device, "cpu");
  EXPECT_EQ(MixedDevicesWarning(t), "");
  const std::string html = RenderHtmlReport(t, {}, {"Sweep s-1 of reduce", {}, "now", ""});
  EXPECT_EQ(html.find("<th class=\"l\">device</th>"), std::string::npos);
}

// A fleet's sweep for cpu:any whose points ran on two nodes: every output says where each ran.
TEST(SweepTable, PointsOnSeveralDevicesAreNamedAndWarnedAbout) {
  Fixture f = ThreePoints();
  f.jobs[0].set_device("a/cpu");
  f.jobs[1].set_device("b/cpu");
  f.jobs[2].set_device("a/cpu");
  const SweepTable t = BuildSweepTable(f.sweep, f.jobs);
  EXPECT_EQ(t.devices, (std::vector<std::string>{"a/cpu", "b/cpu"}));
  EXPECT_EQ(t.device, "a/cpu, b/cpu");
  EXPECT_EQ(t.rows[1].device, "b/cpu");
  EXPECT_NE(MixedDevicesWarning(t).find("2 devices"), std::string::npos);

  const std::string csv = ToCsv(t);
  EXPECT_NE(csv.find(",job_id,device\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",j-1,b/cpu\n"), std::string::npos) << csv;
  const nlohmann::json doc = nlohmann::json::parse(ToJson(t));
  EXPECT_EQ(doc["points"][1]["device"], "b/cpu");
  EXPECT_EQ(doc["devices"].size(), 2u);

  const std::string html = RenderHtmlReport(t, {}, {"Sweep s-1 of reduce", {}, "now", ""});
  EXPECT_NE(html.find("<th class=\"l\">device</th>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">b/cpu</td>"), std::string::npos);
  EXPECT_NE(html.find("a curve across points crosses devices"), std::string::npos);
}

TEST(PlotScript, DrawsTheCeilingAndALinePerVariantOnALogAxis) {
  Fixture f = ThreePoints();
  f.sweep.mutable_points(2)->mutable_values(0)->set_value("1024");  // 64..1024: a log axis
  std::vector<PlotFile> files;
  const std::string script = PlotScript(BuildSweepTable(f.sweep, f.jobs), "/tmp/x", true, &files);
  EXPECT_NE(script.find("measured copy bandwidth"), std::string::npos);
  EXPECT_NE(script.find("set logscale x 2"), std::string::npos);
  EXPECT_NE(script.find("title 'a'"), std::string::npos);
  EXPECT_NE(script.find("title 'b'"), std::string::npos);
  // time, bandwidth and speedup (no FLOP model), each as SVG and PNG.
  EXPECT_EQ(files.size(), 6u);
}

// Issue 30: a collective's sweep plots its bus bandwidth under the peak its jobs measured
// between the ranks, and its JSON carries that ceiling.
TEST(PlotScript, DrawsACollectivesBusBandwidthUnderThePeakBetweenItsRanks) {
  Fixture f = ThreePoints();
  for (v1::Job& job : f.jobs) {
    job.mutable_spec()->set_kernel("all_reduce");
    for (v1::VariantResult& r : *job.mutable_result()->mutable_variants()) {
      r.set_fraction_of_copy_bandwidth(0);
      r.mutable_collective()->set_peak_bus_bytes_per_second(387e9);
    }
  }
  const SweepTable table = BuildSweepTable(f.sweep, f.jobs);
  EXPECT_NEAR(table.peer_bandwidth_bytes_per_second, 387e9, 1);
  std::vector<PlotFile> files;
  const std::string script = PlotScript(table, "/tmp/x", true, &files);
  EXPECT_NE(script.find("measured peak between the ranks"), std::string::npos);
  EXPECT_NE(script.find("bus bandwidth"), std::string::npos);
  EXPECT_EQ(script.find("measured copy bandwidth"), std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(ToJson(table));
  EXPECT_NEAR(doc["ceilings"]["peer_bandwidth_bytes_per_second"].get<double>(), 387e9, 1);
}

TEST(DrawPlots, GnuplotWritesSvgFiles) {
  if (FindProgram("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  Fixture f = ThreePoints();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("kbench_plots_", getpid());
  std::filesystem::create_directories(dir);
  absl::StatusOr<std::vector<PlotFile>> files =
      DrawPlots(BuildSweepTable(f.sweep, f.jobs), {"", dir.string(), false, 30});
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 3u);
  std::ifstream svg((*files)[0].path);
  std::stringstream ss;
  ss << svg.rdbuf();
  EXPECT_NE(ss.str().find("<svg"), std::string::npos);
  // The rendered axis label, as gnuplot drew it: medians of 1-3 ms read in ms, once.
  EXPECT_EQ((*files)[0].name, "time.svg");
  EXPECT_NE(ss.str().find("median time (ms)"), std::string::npos);
  EXPECT_EQ(ss.str().find("mss"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(PlotScript, TimesUnderAMillisecondReadInMicroseconds) {
  Fixture f = ThreePoints();
  for (int i = 0; i < 3; ++i) f.jobs[i] = PointJob(f.sweep.points(i).job_id(), 1e-5 * (i + 1));
  std::vector<PlotFile> files;
  const std::string script = PlotScript(BuildSweepTable(f.sweep, f.jobs), "/tmp/x", false, &files);
  EXPECT_NE(script.find("median time (\u00b5s)"), std::string::npos) << script;
  EXPECT_EQ(script.find("\u00b5ss"), std::string::npos);
}

TEST(RunBounded, KillsAHelperPastItsLimit) {
  const std::string log = std::filesystem::temp_directory_path() / "kbench_bounded.log";
  EXPECT_EQ(RunBounded({"/bin/sleep", "5"}, log, 0.2).code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(RunBounded({"/bin/false"}, log, 5).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(RunBounded({"/nonexistent/gnuplot"}, log, 5).code(), absl::StatusCode::kNotFound);
}

TEST(HtmlReport, EscapesTextAndInlinesPlotsWithoutTheXmlProlog) {
  Fixture f = ThreePoints();
  const std::string html =
      RenderHtmlReport(BuildSweepTable(f.sweep, f.jobs),
                       {{"time", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg id=\"p\"></svg>"}},
                       {"Sweep s-1 of reduce", {"3 points"}, "now", ""});
  EXPECT_NE(html.find("Host &lt;CPU&gt; &amp; co"), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"p\"></svg>"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_NE(html.find(FormatSeconds(1.5e-3)), std::string::npos);
  EXPECT_NE(html.find("FAILED"), std::string::npos);  // variant b's check
  EXPECT_NE(html.find("name=\"viewport\""), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // nothing fetched from the network
}

// Issue 28: a report is a benchmark record: each variant's median with its 95 % interval, the
// samples behind it and their noise, and how it was measured, down to the command that repeats
// it.
TEST(HtmlReport, ShowsEachMedianWithItsIntervalSamplesNoiseAndTheProtocol) {
  v1::Job job = PointJob("j-7", 1e-3);
  job.mutable_spec()->set_mode(v1::MEASURE_MODE_COLD);
  job.mutable_spec()->set_placements(4);
  v1::VariantResult* a = job.mutable_result()->mutable_variants(0);
  a->mutable_stats()->set_median_ci_low_seconds(0.99e-3);
  a->mutable_stats()->set_median_ci_high_seconds(1.02e-3);
  a->mutable_stats()->set_relative_stddev(0.031);
  const std::string html = RenderHtmlReport(BuildJobTable(job), {}, {"Job j-7", {}, "now", ""});
  EXPECT_NE(html.find("<th>95 % interval</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>990 us .. 1.02 ms</td><td>2.00 %</td><td>10</td><td>3.10 %</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<h2>How it was measured</h2>"), std::string::npos);
  EXPECT_NE(html.find("<dt>mode</dt><dd>cold</dd>"), std::string::npos) << html;
  EXPECT_NE(html.find("<dt>buffer placements</dt><dd>4, sampled interleaved</dd>"),
            std::string::npos);
  EXPECT_NE(html.find("within 0.5 % (or the samples&#39; spread is), at least 10 samples and 0.5 s "
                      "measured; at most 15 s"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<dt>reproduce</dt><dd>kbctl repro j-7</dd>"), std::string::npos);
  // b has no interval: none is made up.
  EXPECT_NE(html.find("<td class=\"l\">b</td><td>500 us</td><td>-</td><td>-</td>"),
            std::string::npos)
      << html;
}

TEST(PlotScript, DrawsTheMedianTimeWithItsIntervalAsErrorBars) {
  Fixture f = ThreePoints();
  for (v1::Job& job : f.jobs) {
    for (v1::VariantResult& r : *job.mutable_result()->mutable_variants()) {
      r.mutable_stats()->set_median_ci_low_seconds(0.9 * r.stats().median_seconds());
      r.mutable_stats()->set_median_ci_high_seconds(1.1 * r.stats().median_seconds());
    }
  }
  std::vector<PlotFile> files;
  const std::string script = PlotScript(BuildSweepTable(f.sweep, f.jobs), "/tmp/x", false, &files);
  EXPECT_NE(script.find("using 1:2:3:4 with yerrorlines lw 2 pt 7 title 'a (95 % CI)'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("64 1 0.9 1.1\n"), std::string::npos) << script;  // ms
  EXPECT_NE(script.find("set ylabel 'median time (ms)'"), std::string::npos) << script;
}

}  // namespace
}  // namespace kbench::report
