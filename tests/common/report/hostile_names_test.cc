// Names that cannot be code (issue 24, item 2): hostile variant names, as a database written
// before the name rule may hold them, go through a sweep's report (gnuplot plots, the HTML
// report, CSV) and kbctl history --plot. Real gnuplot and headless Chromium run when installed
// (scripts/install-deps.sh installs both); every command a name hides would touch a marker
// file, which must not exist afterwards, and the outputs must still be made, showing the names.
#include "tests/hostile_names.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/csv_cell.h"
#include "common/report/bounded_process.h"
#include "common/report/gnuplot_text.h"
#include "common/report/history_plot.h"
#include "common/report/html_report.h"
#include "common/report/plots.h"
#include "common/report/sweep_table.h"
#include "gtest/gtest.h"

namespace kbench::report {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A temporary directory per test, holding the marker the hostile names would touch.
class HostileNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat("kbench_hostile_", getpid(), "_",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    marker_ = (dir_ / "ran").string();
    names_ = testing::HostileNames(marker_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One point per name of a "variants" axis (a categorical x), and a numeric "cols" point
  // pair; every point's job measured every hostile variant and "plain".
  SweepTable HostileTable(const std::string& kernel) const {
    v1::Sweep sweep;
    sweep.set_id("s-hostile");
    sweep.mutable_spec()->mutable_base()->set_kernel(kernel);
    sweep.mutable_spec()->add_axes()->set_name("variants");
    std::vector<v1::Job> jobs;
    for (size_t i = 0; i < names_.size(); ++i) {
      v1::SweepPoint* p = sweep.add_points();
      p->set_index(static_cast<int>(i));
      p->set_job_id(absl::StrCat("j-", i));
      p->set_state(v1::JOB_STATE_SUCCEEDED);
      v1::AxisValue* v = p->add_values();
      v->set_axis("variants");
      v->set_value(names_[i]);
      jobs.push_back(Job(absl::StrCat("j-", i), 1e-3 * static_cast<double>(i + 1)));
    }
    return BuildSweepTable(sweep, jobs);
  }

  v1::Job Job(const std::string& id, double seconds) const {
    v1::Job job;
    job.set_id(id);
    job.set_state(v1::JOB_STATE_SUCCEEDED);
    job.set_device(names_[0]);
    std::vector<std::string> variants = names_;
    variants.emplace_back("plain");
    for (const std::string& name : variants) {
      v1::VariantResult* r = job.mutable_result()->add_variants();
      r->set_variant(name);
      r->mutable_stats()->set_median_seconds(seconds);
      r->mutable_stats()->set_samples(10);
      r->set_bytes_per_second(1e6 / seconds);
      r->mutable_correctness()->set_checked(true);
      r->mutable_correctness()->set_passed(true);
      r->mutable_correctness()->set_detail(name);
    }
    job.mutable_result()->mutable_environment()->set_device_name(names_[7]);
    return job;
  }

  fs::path dir_;
  std::string marker_;
  std::vector<std::string> names_;
};

// The marker works: this gnuplot does run a backquote inside a double-quoted title, the form
// GnuplotQuote used to write. Without it, the other tests could not fail.
TEST_F(HostileNamesTest, GnuplotRunsABackquoteInADoubleQuotedTitle) {
  const std::string gnuplot = FindProgram("gnuplot");
  if (gnuplot.empty()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  std::ofstream(dir_ / "control.gp") << "set title \"`touch " << marker_ << "`\"\n";
  ASSERT_TRUE(
      RunBounded({gnuplot, (dir_ / "control.gp").string()}, (dir_ / "log").string(), 30).ok());
  EXPECT_TRUE(fs::exists(marker_));
}

TEST(GnuplotQuote, WritesOneSingleQuotedLineWithItsQuotesDoubled) {
  EXPECT_EQ(GnuplotQuote("a'b\"c`d`\\"), "'a''b\"c`d`\\'");
  EXPECT_EQ(GnuplotQuote("x\nEOD\ry\x01z\x7f"), "'x EOD y z '");
  EXPECT_EQ(GnuplotDataToken("j-1\nEOD"), "j-1 EOD");
}

TEST_F(HostileNamesTest, SweepPlotsDrawEveryNameAsTextAndRunNothing) {
  const std::string gnuplot = FindProgram("gnuplot");
  if (gnuplot.empty()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  absl::StatusOr<std::vector<PlotFile>> files =
      DrawPlots(HostileTable(absl::StrCat("reduce`touch ", marker_, "`")),
                {gnuplot, dir_.string(), /*png=*/true, 60});
  EXPECT_FALSE(fs::exists(marker_)) << ReadAll(dir_ / "plots.gp");
  ASSERT_TRUE(files.ok()) << files.status() << "\n" << ReadAll(dir_ / "gnuplot.log");
  ASSERT_FALSE(files->empty());
  const std::string svg = ReadAll(files->front().path);
  // The key names each variant and the x ticks each point, as plain text.
  EXPECT_NE(svg.find(absl::StrCat("@bq`touch ", marker_, "`")), std::string::npos);
  EXPECT_NE(svg.find(absl::StrCat("@sq' . system('touch ", marker_, "') . '")), std::string::npos);
  EXPECT_NE(svg.find("@dollar$(touch"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  for (const fs::directory_entry& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().filename().string().find("escaped"), std::string::npos) << e.path();
  }
}

TEST_F(HostileNamesTest, TheHtmlReportEscapesEveryName) {
  const SweepTable table = HostileTable("reduce");
  std::vector<InlinePlot> plots;
  const std::string gnuplot = FindProgram("gnuplot");
  if (!gnuplot.empty()) {
    absl::StatusOr<std::vector<PlotFile>> files =
        DrawPlots(table, {gnuplot, dir_.string(), false, 60});
    ASSERT_TRUE(files.ok()) << files.status();
    for (const PlotFile& f : *files) plots.push_back({f.title, ReadAll(f.path)});
  }
  // An SVG that is not gnuplot's plain drawing is left out rather than inlined.
  plots.push_back({"not gnuplot's", "<svg><SCRIPT>alert(1)</SCRIPT></svg>"});
  const std::string html = RenderHtmlReport(table, plots, {"Sweep s-hostile", names_, "now", ""});
  EXPECT_EQ(absl::AsciiStrToLower(html).find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("@&lt;/script&gt;&lt;script&gt;"), std::string::npos);
  EXPECT_FALSE(fs::exists(marker_));
}

// Headless Chromium renders `html` and returns the DOM after its scripts ran.
std::string DumpDom(const std::string& chromium, const fs::path& dir, const std::string& html) {
  const fs::path page = dir / "page.html";
  std::ofstream(page) << html;
  const std::string command = absl::StrCat(
      "timeout 90 ", chromium,
      " --headless --no-sandbox --disable-gpu --user-data-dir=", (dir / "chrome").string(),
      " --dump-dom file://", page.string(), " > ", (dir / "dom.html").string(), " 2>/dev/null");
  if (std::system(command.c_str()) != 0) return "";
  return ReadAll(dir / "dom.html");
}

TEST_F(HostileNamesTest, ChromiumRunsNoScriptFromANameInTheReport) {
  const std::string chromium = FindProgram("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh)";
  // The control: this browser does run a page's script and --dump-dom shows what it did.
  const std::string control =
      DumpDom(chromium, dir_,
              "<html><head><title>t</title></head><body><script>"
              "document.body.setAttribute('data-pwned','1')</script></body></html>");
  ASSERT_NE(control.find("data-pwned=\"1\""), std::string::npos) << control;
  const std::string dom =
      DumpDom(chromium, dir_,
              RenderHtmlReport(HostileTable("reduce"), {}, {"Sweep s-hostile", names_, "", ""}));
  ASSERT_NE(dom.find("<title>Sweep s-hostile</title>"), std::string::npos) << dom;
  EXPECT_EQ(dom.find("data-pwned=\"1\""), std::string::npos);
  // The names are there as text.
  EXPECT_NE(dom.find("@&lt;/script&gt;&lt;script&gt;"), std::string::npos);
}

// RFC 4180 records; a quoted field may hold commas, quotes (doubled) and line breaks.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      rows.back().back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == ',') {
      rows.back().emplace_back();
    } else if (!quoted && c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

TEST_F(HostileNamesTest, CsvQuotesEveryNameAndDisarmsFormulas) {
  for (const std::string& formula : testing::FormulaNames()) names_.push_back(formula);
  const std::vector<std::vector<std::string>> rows = ParseCsv(ToCsv(HostileTable("reduce")));
  ASSERT_GT(rows.size(), 1u);
  std::set<std::string> variants;
  for (const std::vector<std::string>& row : rows) {
    ASSERT_EQ(row.size(), rows[0].size()) << absl::StrJoin(row, "|");
    variants.insert(row[2]);
    for (const std::string& cell : row) EXPECT_FALSE(CsvCellIsFormula(cell)) << cell;
  }
  for (const std::string& name : names_) {
    EXPECT_EQ(variants.count(CsvCellIsFormula(name) ? "'" + name : name), 1u) << name;
  }
  EXPECT_EQ(CsvCell("@user"), "@user");  // a well-formed name stays as it is
  EXPECT_EQ(CsvCell("-1.5e-3"), "-1.5e-3");
  EXPECT_EQ(CsvCell("=1+1"), "'=1+1");
  EXPECT_EQ(CsvCell("a,\"b\""), "\"a,\"\"b\"\"\"");
}

TEST_F(HostileNamesTest, HistoryPlotDrawsEveryNameAsTextAndRunsNothing) {
  const std::string gnuplot = FindProgram("gnuplot");
  if (gnuplot.empty()) GTEST_SKIP() << "gnuplot is not installed (scripts/install-deps.sh)";
  v1::ListHistoryResponse history;
  for (size_t i = 0; i < names_.size(); ++i) {
    v1::HistoryEntry* e = history.add_entries();
    e->set_job_id(names_[i]);
    e->mutable_key()->set_variant(names_[i]);
    e->mutable_key()->set_device_model(names_[(i + 1) % names_.size()]);
    e->mutable_finish_time()->set_seconds(1700000000 + static_cast<int64_t>(i));
    e->set_median_seconds(1e-3);
    e->set_correct(true);
  }
  const std::string out = (dir_ / "history.svg").string();
  const absl::Status drawn =
      DrawHistoryPlot(history, absl::StrCat("softmax`touch ", marker_, "`"), out, {gnuplot, 60});
  EXPECT_FALSE(fs::exists(marker_));
  ASSERT_TRUE(drawn.ok()) << drawn;
  const std::string svg = ReadAll(out);
  EXPECT_NE(svg.find(absl::StrCat("@bq`touch ", marker_, "`")), std::string::npos);
  EXPECT_NE(svg.find(absl::StrCat("softmax`touch ", marker_, "`")), std::string::npos);
}

}  // namespace
}  // namespace kbench::report
