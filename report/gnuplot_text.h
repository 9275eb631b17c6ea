// What every kbench gnuplot script writes alike (the sweep's plots, kbctl history --plot): a
// quoted string, a time unit that keeps the numbers readable, and the two terminals.
#pragma once

#include <string>
#include <utility>

namespace kbench::report {

// `s` as a gnuplot double-quoted string.
std::string GnuplotQuote(const std::string& s);

// A scale for times up to `max` seconds: (factor, unit), e.g. (1e6, "us").
std::pair<double, std::string> TimeScale(double max);

// The `set terminal` line: SVG (760x440, white background) or PNG (1140x660, pngcairo).
std::string GnuplotTerminal(bool png);

}  // namespace kbench::report
