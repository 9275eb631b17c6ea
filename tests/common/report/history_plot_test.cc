// kbctl history --plot's drawing: series per result key and condition, points oldest first with
// their confidence intervals, and a real gnuplot run.
#include "common/report/history_plot.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/report/bounded_process.h"
#include "gtest/gtest.h"

namespace kbench::report {
namespace {

v1::HistoryEntry Entry(const std::string& job, int64_t finished, double median, double low,
                       double high, bool contended = false) {
  v1::HistoryEntry e;
  e.set_job_id(job);
  e.mutable_key()->set_kernel("softmax");
  e.mutable_key()->set_variant("fused");
  e.mutable_key()->add_shape(4096);
  e.mutable_key()->add_shape(4096);
  e.mutable_key()->set_dtype(v1::DTYPE_F32);
  e.mutable_key()->set_mode(v1::MEASURE_MODE_COLD);
  e.mutable_key()->set_device_model("NVIDIA H100 80GB HBM3");
  e.mutable_finish_time()->set_seconds(finished);
  e.set_median_seconds(median);
  e.set_median_ci_low_seconds(low);
  e.set_median_ci_high_seconds(high);
  e.set_correct(true);
  e.set_contended(contended);
  return e;
}

// Newest first, as ListHistory answers.
v1::ListHistoryResponse History() {
  v1::ListHistoryResponse h;
  *h.add_entries() = Entry("j3", 1700000300, 49.10e-6, 49.00e-6, 49.20e-6, /*contended=*/true);
  *h.add_entries() = Entry("j2", 1700000200, 48.99e-6, 48.95e-6, 49.03e-6);
  *h.add_entries() = Entry("j1", 1700000100, 48.96e-6, 48.90e-6, 49.01e-6);
  return h;
}

TEST(HistorySeriesTitle, NamesTheKeyAndAnyCondition) {
  const v1::ListHistoryResponse h = History();
  EXPECT_EQ(HistorySeriesTitle(h.entries(1)),
            "fused [4096x4096] f32 cold on NVIDIA H100 80GB HBM3");
  EXPECT_EQ(HistorySeriesTitle(h.entries(0)),
            "fused [4096x4096] f32 cold on NVIDIA H100 80GB HBM3 (contended)");
}

TEST(HistorySeriesTitle, NamesThePlacementsOfAPooledResult) {
  v1::HistoryEntry e = History().entries(1);
  e.mutable_key()->set_placements(16);
  EXPECT_EQ(HistorySeriesTitle(e),
            "fused [4096x4096] f32 cold x16 placements on NVIDIA H100 80GB HBM3");
}

TEST(HistoryPlotScript, DrawsEachSeriesOldestFirstInMicrosecondsWithItsInterval) {
  const std::string script = HistoryPlotScript(History(), "softmax history", "/tmp/h.svg");
  // The two uncontended results on one line, oldest first; the contended one apart.
  EXPECT_NE(script.find("$s0 << EOD\n1700000100 48.96 48.9 49.01 j1\n"
                        "1700000200 48.99 48.95 49.03 j2\nEOD\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("$s1 << EOD\n1700000300 49.1 49 49.2 j3\nEOD\n"), std::string::npos)
      << script;
  EXPECT_NE(script.find("median time (\u00b5s), 95% CI"), std::string::npos);
  EXPECT_NE(script.find("set terminal svg"), std::string::npos);
  EXPECT_NE(script.find("with yerrorbars"), std::string::npos);
  EXPECT_NE(script.find("(contended)"), std::string::npos);
}

TEST(DrawHistoryPlot, RefusesOtherExtensionsAndNoEntries) {
  EXPECT_EQ(DrawHistoryPlot(History(), "t", "/tmp/h.pdf", {}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(DrawHistoryPlot(v1::ListHistoryResponse(), "t", "/tmp/h.svg", {}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DrawHistoryPlot, GnuplotWritesTheSvgWithEverySeries) {
  if (FindProgram("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  char tmpl[] = "/tmp/kbench_history_plot_XXXXXX";
  const std::filesystem::path dir = mkdtemp(tmpl);
  const std::string svg = (dir / "history.svg").string();
  ASSERT_TRUE(DrawHistoryPlot(History(), "softmax: medians over time", svg, {}).ok());
  std::ifstream f(svg);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("<svg"), std::string::npos);
  EXPECT_NE(text.str().find("softmax: medians over time"), std::string::npos);
  EXPECT_NE(text.str().find("(contended)"), std::string::npos);
  // Only the plot is left: the script and the log are removed.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kbench::report
