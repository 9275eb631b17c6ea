// Names a red team would give a variant (issue 24, item 2): shell and gnuplot command
// substitution, quote break-outs both kinds, a gnuplot data block's end, HTML that closes a
// script, a path out of a directory, control characters and sheer length. Each command touches
// `marker`, so a test proves that nothing ran by the marker's absence.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kbench::testing {

inline std::vector<std::string> HostileNames(const std::string& marker) {
  return {
      absl::StrCat("@bq`touch ", marker, "`"),
      absl::StrCat("@dollar$(touch ", marker, ")"),
      absl::StrCat("@semi;touch ", marker, ";"),
      absl::StrCat("@dq\"`touch ", marker, "`\""),
      absl::StrCat("@bs\\\" . system('touch ", marker, "') . \"\\"),
      absl::StrCat("@sq' . system('touch ", marker, "') . '"),
      absl::StrCat("@nl\nEOD\nsystem('touch ", marker, "')\n$x << EOD"),
      "@</script><script>document.body.setAttribute('data-pwned','1')</script>",
      "@<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
      "@../../../../tmp/kbench-escaped",
      "@ctl\x01\x07\x1b[31m\t\r\x7f",
      absl::StrCat("@", std::string(5000, 'L')),
  };
}

// Cells a spreadsheet would run as formulas (OWASP, "CSV injection").
inline std::vector<std::string> FormulaNames() {
  return {"=cmd|' /C calc'!A0", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0",
          "\t=1+1"};
}

}  // namespace kbench::testing
