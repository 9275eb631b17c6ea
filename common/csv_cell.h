// One CSV cell as every kbench CSV writes it (a sweep's table, a benchmark's samples.csv):
// RFC 4180 quoting, and no formula for a spreadsheet to run. Cells hold names read back from
// stores that predate the name rule (common/user_variant_name.h), so the writer cannot trust
// them. Header-only, like placement_limits.h.
#pragma once

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "common/user_variant_name.h"

namespace kbench {

// Whether a spreadsheet would read `text` as a formula (OWASP "CSV injection": a leading '=',
// '+', '-', '@', tab or carriage return). Numbers ("-1.5e-3") and well-formed variant names
// ("@user") are exempt: neither can hold a call, a cell reference operator or a DDE '|' (the
// name rule admits only [A-Za-z0-9_.-]), and an apostrophe would break every script that reads
// the column as numbers or names.
inline bool CsvCellIsFormula(absl::string_view text) {
  if (text.empty()) return false;
  const char c = text[0];
  if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
  double number = 0;
  if (absl::SimpleAtod(text, &number) && text.find_first_of(" \t\r\n") == text.npos) return false;
  return !IsWellFormedUserVariantName(text);
}

// `text` as one RFC 4180 field: quoted (inner quotes doubled) when it holds a comma, quote, CR
// or LF; a formula-like text gets a leading apostrophe first.
inline std::string CsvCell(absl::string_view text) {
  const std::string cell = CsvCellIsFormula(text) ? absl::StrCat("'", text) : std::string(text);
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  return absl::StrCat("\"", absl::StrReplaceAll(cell, {{"\"", "\"\""}}), "\"");
}

}  // namespace kbench
