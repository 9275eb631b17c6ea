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

// A table cell or header cell of escaped text, right-aligned unless `left` (numbers right,
// words left); CellOfClass gives the cell the style classes `css_class` ("l fail").
std::string Cell(const std::string& text, bool left = false);
std::string CellOfClass(const std::string& text, const std::string& css_class);
std::string Head(const std::string& text, bool left = false);

}  // namespace kbench::report
