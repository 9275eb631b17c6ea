// The frame every kbench HTML page shares (a job's or sweep's report, a diff's verdicts): the
// doctype, a viewport for phones, one inline style sheet (no script, no network reference), the
// heading and the lines under it.
#pragma once

#include <string>
#include <vector>

namespace kbench::report {

// Everything up to and including the heading and the lines under it, each escaped.
std::string OpenHtmlPage(const std::string& heading, const std::vector<std::string>& lines);
// Closes what OpenHtmlPage opened.
inline constexpr char kCloseHtmlPage[] = "</main></body></html>\n";

// Escapes &, <, >, " and ' for HTML text and attribute values.
std::string HtmlEscape(const std::string& text);

}  // namespace kbench::report
