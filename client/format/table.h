// Plain-text layouts for kbctl: kubectl-style column tables and aligned "Key: value" blocks.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kbench::client {

// Columns separated by two spaces, upper-case headers, no borders, no trailing spaces. Widths
// count UTF-8 code points, so a name with non-ASCII letters does not shift the columns.
class Table {
 public:
  enum class Align { kLeft, kRight };

  // How every table of this kbctl renders (kubectl's conventions): `wide` (-o wide) adds the
  // columns marked WideOnly, `headers` false (--no-headers) leaves the header line out. kbctl
  // sets it once per command, before anything renders.
  struct Style {
    bool wide = false;
    bool headers = true;
  };
  static void SetStyle(Style style);

  explicit Table(std::vector<std::string> headers);

  // Numbers read best right-aligned; text columns stay left-aligned (the default).
  Table& AlignRight(size_t column);
  // Cells longer than this keep their first width-3 code points and end in "...".
  Table& SetMaxWidth(size_t column, size_t width);
  // Shown only with -o wide: detail that would take a default table past 100 columns.
  Table& WideOnly(size_t column);
  // Short rows are padded with empty cells; extra cells are an error the caller made and are
  // dropped.
  void AddRow(std::vector<std::string> cells);

  size_t rows() const { return rows_.size(); }
  // The header line and one line per row, each ending in '\n'.
  std::string Render() const;

 private:
  struct Column {
    std::string header;
    Align align = Align::kLeft;
    size_t max_width = 0;  // 0: unlimited.
    bool wide_only = false;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// "Key:" labels padded to one width so the values line up; a value with several lines
// continues under the first one.
class FieldList {
 public:
  void Add(std::string key, std::string value);
  bool empty() const { return fields_.empty(); }
  // Each line prefixed with `indent` spaces.
  std::string Render(size_t indent = 0) const;

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// `text` safe to print on a terminal: every control character (C0, DEL, C1) becomes '?', so a
// name or message from the server (an old database's, or a hostile server's) cannot move the
// cursor, retitle the window or hide text with escape sequences. Newlines stay when asked.
// Tables and field lists apply it to every cell and value.
std::string Printable(const std::string& text, bool keep_newlines);

// Display width of a UTF-8 string in code points (combining marks and wide glyphs aside).
size_t DisplayWidth(const std::string& text);
// At most `width` code points: the text itself, or its head and "...".
std::string Truncate(const std::string& text, size_t width);

}  // namespace kbench::client
