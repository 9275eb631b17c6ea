// Tests of kbctl's unit formatting: times, rates, sizes, percentages.
#include "client/format/units.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

TEST(FormatSeconds, PicksNsUsMsOrSWithFourSignificantDigits) {
  EXPECT_EQ(FormatSeconds(812.34e-9), "812.3 ns");
  EXPECT_EQ(FormatSeconds(1.2344e-6), "1.234 us");
  EXPECT_EQ(FormatSeconds(12.346e-6), "12.35 us");
  EXPECT_EQ(FormatSeconds(1.5e-3), "1.500 ms");
  EXPECT_EQ(FormatSeconds(123.44e-3), "123.4 ms");
  EXPECT_EQ(FormatSeconds(2), "2.000 s");
  EXPECT_EQ(FormatSeconds(1500), "1500 s");
}

TEST(FormatSeconds, CarriesRoundingIntoTheNextUnit) {
  EXPECT_EQ(FormatSeconds(999.96e-9), "1.000 us");
  EXPECT_EQ(FormatSeconds(0.99999), "1.000 s");
}

TEST(FormatSeconds, KeepsSubNanosecondValuesInNs) { EXPECT_EQ(FormatSeconds(0.5e-9), "0.500 ns"); }

TEST(FormatSeconds, PrintsDashForUnmeasuredValues) {
  EXPECT_EQ(FormatSeconds(0), "0 s");
  EXPECT_EQ(FormatSeconds(-1), "-");
  EXPECT_EQ(FormatSeconds(std::nan("")), "-");
  EXPECT_EQ(FormatSeconds(std::numeric_limits<double>::infinity()), "-");
}

TEST(FormatElapsed, UsesCompactWallClockUnits) {
  EXPECT_EQ(FormatElapsed(0.25), "250ms");
  EXPECT_EQ(FormatElapsed(12.34), "12.3s");
  EXPECT_EQ(FormatElapsed(245), "4m05s");
  EXPECT_EQ(FormatElapsed(7380), "2h03m");
  EXPECT_EQ(FormatElapsed(90000), "1d01h");
}

TEST(FormatBandwidth, ScalesByThousands) {
  EXPECT_EQ(FormatBandwidth(812.3e6), "812.3 MB/s");
  EXPECT_EQ(FormatBandwidth(1.2346e9), "1.235 GB/s");
  EXPECT_EQ(FormatBandwidth(3.35e12), "3.350 TB/s");
  EXPECT_EQ(FormatBandwidth(999.97e9), "1.000 TB/s");
  EXPECT_EQ(FormatBandwidth(0), "-");
}

TEST(FormatFlops, ScalesToTflops) {
  EXPECT_EQ(FormatFlops(45.6e9), "45.60 GFLOP/s");
  EXPECT_EQ(FormatFlops(989.4e12), "989.4 TFLOP/s");
  EXPECT_EQ(FormatFlops(1.2e15), "1.200 PFLOP/s");
  EXPECT_EQ(FormatFlops(-5), "-");
}

TEST(FormatBytes, UsesBinaryUnits) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(80.0 * (1ull << 30)), "80.0 GiB");
  EXPECT_EQ(FormatBytes(50 * (1 << 20)), "50.0 MiB");
}

TEST(FormatPercent, KeepsTwoDecimalsBelowTenPercent) {
  EXPECT_EQ(FormatPercent(0.931), "93.1%");
  EXPECT_EQ(FormatPercent(1.0), "100.0%");
  EXPECT_EQ(FormatPercent(0.0412), "4.12%");
  EXPECT_EQ(FormatPercent(0.0042), "0.42%");
  EXPECT_EQ(FormatPercent(0.005), "0.50%");
  EXPECT_EQ(FormatPercent(0.00042), "0.042%");
  EXPECT_EQ(FormatPercent(0), "0%");
  EXPECT_EQ(FormatPercent(-0.1), "-");
}

TEST(FormatScientific, PrintsTwoDigitsAndNan) {
  EXPECT_EQ(FormatScientific(1.234e-7), "1.2e-07");
  EXPECT_EQ(FormatScientific(std::nan("")), "nan");
}

TEST(FormatFactor, ScalesDecimals) {
  EXPECT_EQ(FormatFactor(1), "1.00x");
  EXPECT_EQ(FormatFactor(12.44), "12.4x");
  EXPECT_EQ(FormatFactor(250), "250x");
  EXPECT_EQ(FormatFactor(0), "-");
}

}  // namespace
}  // namespace kbench::client
