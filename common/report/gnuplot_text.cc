// Shared gnuplot script pieces (gnuplot_text.h).
#include "common/report/gnuplot_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kbench::report {

std::string GnuplotDataToken(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) c = ' ';
  }
  return out;
}

std::string GnuplotQuote(const std::string& s) {
  // gnuplot 5.4 "help syntax": "single-quoted strings ... backslashes are not interpreted";
  // "help substitution": "Command-line substitution is not done inside single quotes".
  return absl::StrCat("'", absl::StrReplaceAll(GnuplotDataToken(s), {{"'", "''"}}), "'");
}

std::pair<double, std::string> TimeScale(double max) {
  if (max < 1e-6) return {1e9, "ns"};
  if (max < 1e-3) return {1e6, "\u00b5s"};  // µs: gnuplot writes UTF-8 as given
  if (max < 1) return {1e3, "ms"};
  return {1, "s"};
}

std::string GnuplotTerminal(bool png) {
  return png ? "set terminal pngcairo size 1140,660 noenhanced font 'sans,11'\n"
             : "set terminal svg size 760,440 noenhanced font 'sans,11' "
               "background rgb 'white'\n";
}

}  // namespace kbench::report
