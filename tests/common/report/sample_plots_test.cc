// A job's sample plots (common/report/sample_plots.h): the script from known samples, and gnuplot's
// own SVG read back for its axis labels when gnuplot is installed.
#include "common/report/sample_plots.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/report/bounded_process.h"
#include "gtest/gtest.h"

namespace kbench::report {
namespace {

v1::Job JobWithSamples() {
  v1::Job job;
  job.set_id("j-s");
  job.mutable_spec()->set_kernel("softmax");
  v1::VariantResult* fused = job.mutable_result()->add_variants();
  fused->set_variant("fused");
  // 3000 samples drifting from 40 to 43 us: thinned to at most 1500 points a line.
  for (int i = 0; i < 3000; ++i) fused->add_sample_seconds(40e-6 + 1e-9 * i);
  v1::VariantResult* none = job.mutable_result()->add_variants();
  none->set_variant("unsampled");
  return job;
}

TEST(SamplePlots, DrawsEachSampledVariantInOrderAndAsADistributionInMicroseconds) {
  const v1::Job job = JobWithSamples();
  const std::vector<SampleSeries> series = SamplesOf(job);
  ASSERT_EQ(series.size(), 1u);  // the variant without samples is left out
  std::vector<PlotFile> files;
  const std::string script = SamplePlotScript(series, "softmax", "/tmp/x", &files);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "samples.svg");
  EXPECT_EQ(files[1].name, "distribution.svg");
  EXPECT_NE(script.find("set ylabel 'time per launch (µs)'"), std::string::npos) << script;
  EXPECT_NE(script.find("set xlabel 'time per launch (µs)'"), std::string::npos);
  EXPECT_NE(script.find("title 'fused'"), std::string::npos);
  // The first and the last sample are drawn, in µs; the distribution ends at fraction 1.
  EXPECT_NE(script.find("0 40\n"), std::string::npos);
  EXPECT_NE(script.find("2999 42.999\n"), std::string::npos) << script.substr(0, 400);
  EXPECT_NE(script.find("42.999 1\n"), std::string::npos);
  size_t lines = 0;
  for (size_t at = script.find("$order0 << EOD"); at < script.find("EOD\n$cdf0"); ++lines) {
    at = script.find('\n', at + 1);
  }
  // At most 1500 thinned samples and the last one, between the block's first line and its end.
  EXPECT_LE(lines, 1503u);
}

// A hostile variant name (a user's @name from an old store, or an operation's title) is data in
// the script: quoted the one way gnuplot reads as plain text, no line break, no command.
TEST(SamplePlots, AHostileVariantNameIsQuotedText) {
  const std::vector<SampleSeries> series = {{"@x' `touch /tmp/pwned`\nsystem 'id", {1e-6, 2e-6}}};
  std::vector<PlotFile> files;
  const std::string script = SamplePlotScript(series, "softmax", "/tmp/x", &files);
  EXPECT_NE(script.find("title '@x'' `touch /tmp/pwned` system ''id'"), std::string::npos)
      << script;
  EXPECT_EQ(script.find("\nsystem"), std::string::npos);
}

TEST(SamplePlots, GnuplotWritesTheAxisLabelsItWasGiven) {
  if (FindProgram("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("kbench-samples-", getpid());
  std::filesystem::create_directories(dir);
  PlotOptions options;
  options.directory = dir.string();
  absl::StatusOr<std::vector<PlotFile>> files = DrawSamplePlots(JobWithSamples(), options);
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_EQ(files->size(), 2u);
  for (const PlotFile& f : *files) {
    std::ifstream in(f.path);
    std::stringstream svg;
    svg << in.rdbuf();
    EXPECT_NE(svg.str().find("<svg"), std::string::npos) << f.name;
    // gnuplot writes the label's text into the SVG: µs as µs, never "uss" or "µss".
    EXPECT_NE(svg.str().find("time per launch (µs)"), std::string::npos) << f.name;
    EXPECT_EQ(svg.str().find("ss)"), std::string::npos) << f.name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kbench::report
