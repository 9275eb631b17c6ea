// Counting SASS opcodes. Both disassemblers print one instruction a line as
// "/*0040*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;" (offset comment, optional predicate,
// opcode with modifiers, operands); cuobjdump adds encoding-only lines "/* 0x... */".
#include "client/explain/sass_opcodes.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace kbench::client::explain {
namespace {

// The text after a leading "/*<hex offset>*/", or false when the line does not start so.
bool AfterOffset(absl::string_view line, absl::string_view* rest) {
  line = absl::StripLeadingAsciiWhitespace(line);
  if (!absl::ConsumePrefix(&line, "/*")) return false;
  const size_t close = line.find("*/");
  if (close == 0 || close == absl::string_view::npos) return false;
  for (char c : line.substr(0, close)) {
    if (!absl::ascii_isxdigit(c)) return false;  // "/* 0x... */" is an encoding, not an offset
  }
  *rest = absl::StripLeadingAsciiWhitespace(line.substr(close + 2));
  return true;
}

// The opcode of an instruction's text: predicate ("@P0", "@!PT") and modifiers dropped.
std::string Opcode(absl::string_view text) {
  if (!text.empty() && text.front() == '{')
    text = absl::StripLeadingAsciiWhitespace(text.substr(1));
  if (!text.empty() && text.front() == '@') {
    const size_t space = text.find_first_of(" \t");
    if (space == absl::string_view::npos) return "";
    text = absl::StripLeadingAsciiWhitespace(text.substr(space));
  }
  const size_t end = text.find_first_of(" \t;.");
  const absl::string_view opcode = text.substr(0, end);
  for (char c : opcode) {
    if (!absl::ascii_isupper(c) && !absl::ascii_isdigit(c) && c != '_') return "";
  }
  return std::string(opcode);
}

}  // namespace

std::map<std::string, int64_t> SassOpcodeHistogram(const std::string& sass) {
  std::map<std::string, int64_t> histogram;
  std::istringstream in(sass);
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest;
    if (!AfterOffset(line, &rest)) continue;
    const std::string opcode = Opcode(rest);
    if (!opcode.empty()) ++histogram[opcode];
  }
  return histogram;
}

std::vector<v1::OpcodeCountChange> DiffOpcodes(const std::map<std::string, int64_t>& baseline,
                                               const std::map<std::string, int64_t>& candidate) {
  std::map<std::string, std::pair<int64_t, int64_t>> both;
  for (const auto& [opcode, n] : baseline) both[opcode].first = n;
  for (const auto& [opcode, n] : candidate) both[opcode].second = n;
  std::vector<v1::OpcodeCountChange> changes;
  for (const auto& [opcode, counts] : both) {
    if (counts.first == counts.second) continue;
    v1::OpcodeCountChange& c = changes.emplace_back();
    c.set_opcode(opcode);
    c.set_baseline(counts.first);
    c.set_candidate(counts.second);
  }
  std::stable_sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) {
    return std::llabs(a.candidate() - a.baseline()) > std::llabs(b.candidate() - b.baseline());
  });
  return changes;
}

std::string FormatOpcodeChanges(const std::vector<v1::OpcodeCountChange>& changes, int limit) {
  std::vector<std::string> parts;
  for (const v1::OpcodeCountChange& c : changes) {
    if (static_cast<int>(parts.size()) == limit) {
      parts.push_back(absl::StrCat("and ", changes.size() - parts.size(), " more"));
      break;
    }
    const int64_t delta = c.candidate() - c.baseline();
    parts.push_back(absl::StrCat(delta > 0 ? "+" : "", delta, " ", c.opcode()));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace kbench::client::explain
