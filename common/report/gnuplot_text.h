// What every kbench gnuplot script writes alike (the sweep's plots, kbctl history --plot): a
// quoted string, a time unit that keeps the numbers readable, and the two terminals.
#pragma once

#include <string>
#include <utility>

namespace kbench::report {

// `s` as a gnuplot single-quoted string, the only form gnuplot reads as plain data: no
// backslash escapes and no backquote command substitution (a double-quoted "`cmd`" runs cmd),
// a quote written twice. Control characters (a newline would end the command) become spaces.
// Every text a script takes from results (variant names, axis values, titles, paths) goes
// through it, since stores written before the name rule hold any bytes.
std::string GnuplotQuote(const std::string& s);

// `s` with every control character (bytes below 0x20 and 0x7f) replaced by a space: for a
// token written into a data block, where a newline would end the line (or the block at "EOD").
std::string GnuplotDataToken(const std::string& s);

// A scale for times up to `max` seconds: (factor, unit), e.g. (1e6, "µs").
std::pair<double, std::string> TimeScale(double max);

// The `set terminal` line: SVG (760x440, white background) or PNG (1140x660, pngcairo).
std::string GnuplotTerminal(bool png);

}  // namespace kbench::report
