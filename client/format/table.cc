// Column tables and key/value blocks for kbctl's human-readable output.
#include "client/format/table.h"

#include <algorithm>

#include "absl/strings/str_split.h"

namespace kbench::client {
namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset of the code point with index `n` (or the end).
size_t ByteOffsetOfCodePoint(const std::string& text, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsContinuationByte(text[i])) continue;
    if (seen == n) return i;
    ++seen;
  }
  return text.size();
}

void RightTrim(std::string* line) {
  while (!line->empty() && line->back() == ' ') line->pop_back();
}

}  // namespace

std::string Printable(const std::string& text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    // C1 controls (U+0080-U+009F, 0xC2 0x80-0x9F in UTF-8): 0x9B is a CSI on some terminals.
    if (c == 0xC2 && i + 1 < text.size() &&
        (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80) {
      out += '?';
      ++i;
      continue;
    }
    const bool control = c < 0x20 || c == 0x7F;
    out += control && !(keep_newlines && c == '\n') ? '?' : text[i];
  }
  return out;
}

size_t DisplayWidth(const std::string& text) {
  return std::count_if(text.begin(), text.end(), [](char c) { return !IsContinuationByte(c); });
}

std::string Truncate(const std::string& text, size_t width) {
  if (width == 0 || DisplayWidth(text) <= width) return text;
  if (width <= 3) return text.substr(0, ByteOffsetOfCodePoint(text, width));
  return text.substr(0, ByteOffsetOfCodePoint(text, width - 3)) + "...";
}

namespace {

// Process-wide: kbctl runs one command per process (tests in-process set it per command too).
Table::Style& CurrentStyle() {
  static Table::Style style;
  return style;
}

}  // namespace

void Table::SetStyle(Style style) { CurrentStyle() = style; }

Table::Table(std::vector<std::string> headers) {
  for (std::string& h : headers) columns_.push_back(Column{std::move(h)});
}

Table& Table::AlignRight(size_t column) {
  if (column < columns_.size()) columns_[column].align = Align::kRight;
  return *this;
}

Table& Table::WideOnly(size_t column) {
  if (column < columns_.size()) columns_[column].wide_only = true;
  return *this;
}

Table& Table::SetMaxWidth(size_t column, size_t width) {
  if (column < columns_.size()) columns_[column].max_width = width;
  return *this;
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  for (size_t c = 0; c < cells.size(); ++c) {
    cells[c] = Printable(cells[c], /*keep_newlines=*/false);
    if (columns_[c].max_width > 0) cells[c] = Truncate(cells[c], columns_[c].max_width);
  }
  rows_.push_back(std::move(cells));
}

std::string Table::Render() const {
  const Style& style = CurrentStyle();
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = style.headers ? DisplayWidth(columns_[c].header) : 0;
    for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  const auto render_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    bool first = true;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].wide_only && !style.wide) continue;
      if (!first) line += "  ";
      first = false;
      const std::string pad(widths[c] - DisplayWidth(cells[c]), ' ');
      if (columns_[c].align == Align::kRight) {
        line += pad + cells[c];
      } else {
        line += cells[c] + pad;
      }
    }
    RightTrim(&line);
    return line + "\n";
  };
  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  std::string out = style.headers ? render_line(headers) : "";
  for (const auto& row : rows_) out += render_line(row);
  return out;
}

void FieldList::Add(std::string key, std::string value) {
  fields_.emplace_back(Printable(key, false), Printable(value, /*keep_newlines=*/true));
}

std::string FieldList::Render(size_t indent) const {
  size_t key_width = 0;
  for (const auto& [key, value] : fields_) key_width = std::max(key_width, DisplayWidth(key) + 1);
  const std::string margin(indent, ' ');
  std::string out;
  for (const auto& [key, value] : fields_) {
    const std::string label = key + ":";
    bool first = true;
    for (absl::string_view line : absl::StrSplit(value, '\n')) {
      std::string text = margin;
      text += first ? label + std::string(key_width - DisplayWidth(label), ' ')
                    : std::string(key_width, ' ');
      text += "  ";
      text.append(line.data(), line.size());
      RightTrim(&text);
      out += text + "\n";
      first = false;
    }
  }
  return out;
}

}  // namespace kbench::client
