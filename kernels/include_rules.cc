// The preprocessor's view of the files a user's source names (issue 24, item 1): translation
// phases 1-3 (line splices, comments) as the standard reads them, then each directive and each
// __has_include / _Pragma / header-unit import is checked. A scan cannot expand macros, so
// what a macro could name is refused outright: `#include P` is refused whatever P is.
#include "kernels/include_rules.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace kbench::kernels {
namespace {

constexpr size_t kQuoted = 128;  // the most of a name a message quotes

bool IsIdentChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Phase 2: a backslash (or the trigraph ??/) before a newline joins the lines; GCC and EDG also
// accept blanks between the backslash and the newline, so they are read as joining too.
std::string SpliceLines(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    size_t j = i;
    if (s[i] == '\\') {
      j = i + 1;
    } else if (s.substr(i, 3) == "?\?/") {
      j = i + 3;
    } else {
      out.push_back(s[i]);
      continue;
    }
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
    if (j < s.size() && s[j] == '\n') {
      i = j;  // the splice disappears
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The end (one past the closing quote) of the literal opening at `i`; raw strings included.
size_t LiteralEnd(absl::string_view s, size_t i) {
  const char quote = s[i];
  if (quote == '"' && i > 0 && s[i - 1] == 'R') {
    const size_t open = s.find('(', i);
    if (open == absl::string_view::npos) return s.size();
    const std::string close = absl::StrCat(")", s.substr(i + 1, open - i - 1), "\"");
    const size_t end = s.find(close, open);
    return end == absl::string_view::npos ? s.size() : end + close.size();
  }
  size_t j = i + 1;
  while (j < s.size() && s[j] != quote && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
  return std::min(j + 1, s.size());
}

// Phase 3: each comment becomes one space (so a block comment spanning lines does not end a
// directive); literals are copied whole, so "//" inside one is no comment.
std::string StripComments(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const bool char_literal = s[i] == '\'' && (i == 0 || !IsIdentChar(s[i - 1]));
    if (s[i] == '"' || char_literal) {
      const size_t end = LiteralEnd(s, i);
      out.append(s.data() + i, end - i);
      i = end;
    } else if (s.substr(i, 2) == "//") {
      i = std::min(s.find('\n', i), s.size());
      out.push_back(' ');
    } else if (s.substr(i, 2) == "/*") {
      const size_t end = s.find("*/", i + 2);
      i = end == absl::string_view::npos ? s.size() : end + 2;
      out.push_back(' ');
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

absl::Status Refuse(absl::string_view what, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      "code: ", what.substr(0, kQuoted), " ", why,
      "; a kernel may name only the CUDA toolkit's headers, by a relative path, literally"));
}

// A file named by the source: relative, without "..", without backslashes.
absl::Status CheckNamedFile(absl::string_view what, absl::string_view name) {
  if (name.empty()) return Refuse(what, "names no file");
  if (name[0] == '/') return Refuse(what, "names an absolute path");
  if (name.find('\\') != absl::string_view::npos) return Refuse(what, "contains a backslash");
  for (absl::string_view part : absl::StrSplit(name, '/')) {
    if (part == "..") return Refuse(what, "climbs out of the include directories with '..'");
  }
  return absl::OkStatus();
}

size_t SkipBlanks(absl::string_view s, size_t i) {
  while (i < s.size() &&
         (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v')) {
    ++i;
  }
  return i;
}

// The "file" or <file> at `i` (after blanks), as the directive `what` names it; a computed name
// (a macro, __FILE__, anything but a literal) is refused.
absl::Status CheckHeaderName(absl::string_view s, size_t i, absl::string_view what) {
  i = SkipBlanks(s, i);
  if (i >= s.size() || (s[i] != '"' && s[i] != '<')) {
    const size_t eol = std::min(s.find('\n', i), s.size());
    return Refuse(absl::StrCat(what, " ", s.substr(i, eol - i)),
                  "is computed (a macro or other expression); only a literal \"file\" or <file> "
                  "is accepted");
  }
  const char close = s[i] == '"' ? '"' : '>';
  const size_t end = s.find_first_of(absl::StrCat(std::string(1, close), "\n"), i + 1);
  const absl::string_view name =
      s.substr(i + 1, (end == absl::string_view::npos ? s.size() : end) - i - 1);
  return CheckNamedFile(absl::StrCat(what, " ", s.substr(i, 1), name, std::string(1, close)), name);
}

// Every string literal in [begin, end) names a file or nothing harmful: checked as a file.
absl::Status CheckStringLiterals(absl::string_view s, size_t begin, size_t end,
                                 absl::string_view what) {
  for (size_t i = begin; i < end; ++i) {
    if (s[i] != '"') continue;
    const size_t close = std::min(LiteralEnd(s, i), end);
    const absl::string_view name = s.substr(i + 1, close > i + 1 ? close - i - 2 : 0);
    KBENCH_RETURN_IF_ERROR(CheckNamedFile(absl::StrCat(what, " \"", name, "\""), name));
    i = close;
  }
  return absl::OkStatus();
}

// A pragma's text: GCC's `dependency` (which opens a file) and MSVC's `include_alias` are
// refused; any file it names must pass CheckNamedFile.
absl::Status CheckPragmaText(absl::string_view text) {
  for (absl::string_view word : absl::StrSplit(text, absl::ByAnyChar(" \t\"()<>,"))) {
    if (word == "dependency" || word == "include_alias" || word == "include" ||
        word == "include_next") {
      return Refuse(absl::StrCat("#pragma ", absl::StripAsciiWhitespace(text)),
                    "asks the preprocessor to read a file");
    }
  }
  return CheckStringLiterals(text, 0, text.size(), "#pragma");
}

// `_Pragma("...")`: the literal is unescaped and checked as a pragma; a computed operand
// (`_Pragma(#x)` inside a macro) is refused, since its text is only known after expansion.
absl::Status CheckPragmaOperator(absl::string_view s, size_t i) {
  i = SkipBlanks(s, i);
  if (i < s.size() && s[i] == '(') i = SkipBlanks(s, i + 1);
  size_t prefix = i;
  while (prefix < s.size() &&
         (s[prefix] == 'L' || s[prefix] == 'u' || s[prefix] == 'U' || s[prefix] == '8')) {
    ++prefix;
  }
  if (prefix >= s.size() || s[prefix] != '"') {
    return Refuse("_Pragma(...)", "is computed; only _Pragma(\"literal\") is accepted");
  }
  const size_t end = LiteralEnd(s, prefix);
  std::string text;
  for (size_t j = prefix + 1; j + 1 < end; ++j) {
    if (s[j] == '\\' && j + 2 < end) ++j;  // \" and \\ as the standard's destringizing
    text.push_back(s[j]);
  }
  return CheckPragmaText(text);
}

// One directive: `line` is the text after '#' (or "%:") to the end of the logical line.
absl::Status CheckDirective(absl::string_view line) {
  size_t i = SkipBlanks(line, 0);
  size_t j = i;
  while (j < line.size() && IsIdentChar(line[j])) ++j;
  const absl::string_view name = line.substr(i, j - i);
  if (name == "include" || name == "include_next" || name == "import" || name == "embed") {
    return CheckHeaderName(line, j, absl::StrCat("#", name));
  }
  if (name == "pragma") return CheckPragmaText(line.substr(j));
  if (name == "line") return CheckStringLiterals(line, j, line.size(), "#line");
  return absl::OkStatus();
}

// Outside directives: __has_include(...), _Pragma(...) and a C++20 header-unit `import "x"`.
absl::Status CheckOperators(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const bool char_literal = s[i] == '\'' && (i == 0 || !IsIdentChar(s[i - 1]));
    if (s[i] == '"' || char_literal) {
      i = LiteralEnd(s, i);
      continue;
    }
    if (!IsIdentChar(s[i]) || (i > 0 && IsIdentChar(s[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && IsIdentChar(s[j])) ++j;
    const absl::string_view word = s.substr(i, j - i);
    if (word == "__has_include" || word == "__has_include_next") {
      size_t k = SkipBlanks(s, j);
      if (k < s.size() && s[k] == '(') ++k;
      KBENCH_RETURN_IF_ERROR(CheckHeaderName(s, k, word));
    } else if (word == "_Pragma") {
      KBENCH_RETURN_IF_ERROR(CheckPragmaOperator(s, j));
    } else if (word == "import") {
      const size_t k = SkipBlanks(s, j);
      if (k < s.size() && (s[k] == '"' || s[k] == '<')) {
        KBENCH_RETURN_IF_ERROR(CheckHeaderName(s, k, "import"));
      }
    }
    i = j;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckSourceIncludes(absl::string_view source) {
  const std::string text = StripComments(SpliceLines(source));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t i = SkipBlanks(line, 0);
    if (line.substr(i, 1) == "#") {
      KBENCH_RETURN_IF_ERROR(CheckDirective(line.substr(i + 1)));
    } else if (line.substr(i, 2) == "%:") {
      KBENCH_RETURN_IF_ERROR(CheckDirective(line.substr(i + 2)));
    }
  }
  return CheckOperators(text);
}

absl::Status CheckSourceFileName(absl::string_view file_name) {
  if (file_name.empty()) return absl::OkStatus();
  bool ok = file_name.size() <= 128 && file_name != "." && file_name != "..";
  for (char c : file_name) ok &= IsIdentChar(c) || c == '-' || c == '.';
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("file_name: '", file_name.substr(0, kQuoted),
                   "' must be a file name without a directory (letters, digits, '_', '-', '.'; at "
                   "most 128 characters)"));
}

}  // namespace kbench::kernels
