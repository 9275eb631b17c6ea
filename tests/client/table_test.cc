// Tests of kbctl's column tables and key/value blocks.
#include "client/format/table.h"

#include "gtest/gtest.h"

namespace kbench::client {
namespace {

TEST(Table, AlignsColumnsToTheWidestCellWithTwoSpaces) {
  Table t({"OP", "VARIANTS"});
  t.AddRow({"softmax", "naive,fused"});
  t.AddRow({"add", "host"});
  EXPECT_EQ(t.Render(),
            "OP       VARIANTS\n"
            "softmax  naive,fused\n"
            "add      host\n");
}

TEST(Table, RightAlignsNumericColumns) {
  Table t({"NAME", "TIME"});
  t.AlignRight(1);
  t.AddRow({"a", "1.000 ms"});
  t.AddRow({"b", "12.35 us"});
  t.AddRow({"c", "5 s"});
  EXPECT_EQ(t.Render(),
            "NAME      TIME\n"
            "a     1.000 ms\n"
            "b     12.35 us\n"
            "c          5 s\n");
}

TEST(Table, PadsShortRowsAndLeavesNoTrailingSpaces) {
  Table t({"A", "B", "C"});
  t.AddRow({"x"});
  EXPECT_EQ(t.Render(), "A  B  C\nx\n");
}

TEST(Table, TruncatesCellsBeyondMaxWidth) {
  Table t({"KERNEL"});
  t.SetMaxWidth(0, 10);
  t.AddRow({"void softmax_kernel<float>(float*)"});
  EXPECT_EQ(t.Render(), "KERNEL\nvoid so...\n");
}

TEST(Table, CountsUtf8CodePointsForWidth) {
  Table t({"NAME", "X"});
  t.AddRow({"\xC2\xB5s", "1"});  // "µs": 2 code points, 3 bytes.
  t.AddRow({"ab", "2"});
  EXPECT_EQ(t.Render(), "NAME  X\n\xC2\xB5s    1\nab    2\n");
}

TEST(Truncate, NeverSplitsACodePoint) {
  EXPECT_EQ(Truncate("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 4), "\xC3\xA9...");
  EXPECT_EQ(Truncate("short", 10), "short");
}

TEST(FieldList, AlignsValuesAndIndentsContinuationLines) {
  FieldList f;
  f.Add("Job", "42");
  f.Add("Correctness", "pass\nsecond line");
  EXPECT_EQ(f.Render(2),
            "  Job:          42\n"
            "  Correctness:  pass\n"
            "                second line\n");
}

}  // namespace
// Issue 24: a server-sent name cannot drive the terminal (ESC sequences, BEL, C1 CSI).
TEST(Table, PrintsControlCharactersAsQuestionMarks) {
  Table t({"NAME"});
  t.AddRow(
      {"@x\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
       "31m\r\n"});
  const std::string out = t.Render();
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(out.find("@x?]0;pwned??[2J?31m??"), std::string::npos) << out;
  FieldList f;
  f.Add("Error", "line one\x1b[31m\nline two");
  const std::string fields = f.Render();
  EXPECT_EQ(fields.find('\x1b'), std::string::npos);
  EXPECT_NE(fields.find("line one?[31m"), std::string::npos) << fields;
  EXPECT_NE(fields.find("line two"), std::string::npos);
  EXPECT_EQ(Printable("caf\xc3\xa9", false), "caf\xc3\xa9");  // letters stay
}

// kubectl's conventions (issue 28): -o wide adds the columns a default table leaves out to stay
// within 100 columns, --no-headers drops the header line (and its width).
TEST(Table, ShowsWideOnlyColumnsWithWideAndLeavesOutHeadersWhenAsked) {
  Table t({"NAME", "OWNER-OF-A-LONG-HEADER", "SIZE"});
  t.WideOnly(1).AlignRight(2);
  t.AddRow({"a", "alice", "1"});
  EXPECT_EQ(t.Render(), "NAME  SIZE\na        1\n");
  Table::SetStyle({.wide = true});
  EXPECT_EQ(t.Render(), "NAME  OWNER-OF-A-LONG-HEADER  SIZE\na     alice                      1\n");
  Table::SetStyle({.wide = false, .headers = false});
  EXPECT_EQ(t.Render(), "a  1\n");
  Table::SetStyle({});
}

}  // namespace kbench::client
