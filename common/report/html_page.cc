// The page frame: doctype, viewport, the style sheet, the heading.
#include "common/report/html_page.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace kbench::report {
namespace {

constexpr char kStyle[] = R"css(
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:1rem;
 color:#1b1b1b;background:#fafafa;line-height:1.45}
main{max-width:1320px;margin:0 auto}
h1{font-size:1.4rem;margin:.2rem 0 .6rem;word-break:break-word}
h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid #ddd}
p.meta{margin:.1rem 0;color:#444}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid #ddd;background:#fff}
table{border-collapse:collapse;font-size:.9rem;min-width:100%}
th,td{padding:.3rem .6rem;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f0f0f0;position:sticky;top:0;white-space:normal;vertical-align:bottom}
td.l,th.l{text-align:left}
.pass{color:#176f2c}.fail{color:#b00020;font-weight:600}
figure{margin:1rem 0;background:#fff;border:1px solid #ddd;padding:.5rem}
figure svg{width:100%;max-width:1100px;height:auto;display:block}
figcaption{font-size:.9rem;color:#444}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
@media (max-width:600px){body{padding:.5rem}dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}}
)css";

}  // namespace

std::string OpenHtmlPage(const std::string& heading, const std::vector<std::string>& lines) {
  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>",
      HtmlEscape(heading), "</title><style>", kStyle, "</style></head><body><main>", "<h1>",
      HtmlEscape(heading), "</h1>");
  for (const std::string& line : lines) {
    absl::StrAppend(&html, "<p class=\"meta\">", HtmlEscape(line), "</p>");
  }
  return html;
}

std::string HtmlEscape(const std::string& text) {
  return absl::StrReplaceAll(
      text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}, {"'", "&#39;"}});
}

std::string Cell(const std::string& text, bool left) { return CellOfClass(text, left ? "l" : ""); }

std::string CellOfClass(const std::string& text, const std::string& css_class) {
  return absl::StrCat(css_class.empty() ? "<td>" : absl::StrCat("<td class=\"", css_class, "\">"),
                      HtmlEscape(text), "</td>");
}

std::string Head(const std::string& text, bool left) {
  return absl::StrCat(left ? "<th class=\"l\">" : "<th>", HtmlEscape(text), "</th>");
}

}  // namespace kbench::report
