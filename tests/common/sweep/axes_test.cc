// Sweep axes: ranges, lists, zips and the cap on points.
#include "common/sweep/axes.h"

#include "gtest/gtest.h"

namespace kbench::sweep {
namespace {

TEST(ParseAxisValues, GeometricRangeIncludesStopWhenReached) {
  absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("cols", "1024:32768:*2");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<std::string>{"1024", "2048", "4096", "8192", "16384", "32768"}));
}

TEST(ParseAxisValues, GeometricRangeStopsBelowAnUnreachedStop) {
  absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("n", "3:100:*3");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<std::string>{"3", "9", "27", "81"}));
}

TEST(ParseAxisValues, LinearRangeAndDefaultStep) {
  absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("rows", "10:40:+15");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<std::string>{"10", "25", "40"}));
  absl::StatusOr<std::vector<std::string>> d = ParseAxisValues("k", "1:3");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, (std::vector<std::string>{"1", "2", "3"}));
}

TEST(ParseAxisValues, ListKeepsOrderAndSingleValues) {
  absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("dtype", "f32, bf16,f16");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<std::string>{"f32", "bf16", "f16"}));
  absl::StatusOr<std::vector<std::string>> one = ParseAxisValues("rows", "4096");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<std::string>{"4096"});
}

TEST(ParseAxisValues, RefusesMalformedRangesNamingTheAxis) {
  for (const char* bad :
       {"8:4:*2", "1:8:*1", "0:8:*2", "1:8:-1", "1:8:+0", "a:8", "1:2:3:4", "1,,2", "", "x,x"}) {
    absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("cols", bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(v.status().message().find("cols"), std::string::npos) << v.status();
  }
}

TEST(ParseAxisValues, RefusesARangeLongerThanTheCap) {
  absl::StatusOr<std::vector<std::string>> v = ParseAxisValues("n", "1:100000", 1000);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(ParseAxisFlag, SplitsNameAndValues) {
  absl::StatusOr<Axis> a = ParseAxisFlag("cols=1:4:*2");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->name, "cols");
  EXPECT_EQ(a->values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(ParseAxisFlag("cols").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseAxisFlag("=1,2").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ExpandPoints, CartesianWithTheLastAxisFastest) {
  absl::StatusOr<std::vector<Point>> p =
      ExpandPoints({{"cols", {"1", "2", "4"}}, {"dtype", {"f32", "bf16"}}}, {});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 6u);
  EXPECT_EQ((*p)[0], (Point{{"cols", "1"}, {"dtype", "f32"}}));
  EXPECT_EQ((*p)[1], (Point{{"cols", "1"}, {"dtype", "bf16"}}));
  EXPECT_EQ((*p)[5], (Point{{"cols", "4"}, {"dtype", "bf16"}}));
}

TEST(ExpandPoints, ZippedAxesAdvanceTogether) {
  absl::StatusOr<std::vector<Point>> p = ExpandPoints(
      {{"rows", {"8", "16", "32"}}, {"dtype", {"f32", "bf16"}}, {"cols", {"80", "160", "320"}}},
      {"rows", "cols"});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 6u);  // 3 zipped x 2 dtypes, not 18
  EXPECT_EQ((*p)[0], (Point{{"rows", "8"}, {"dtype", "f32"}, {"cols", "80"}}));
  EXPECT_EQ((*p)[1], (Point{{"rows", "8"}, {"dtype", "bf16"}, {"cols", "80"}}));
  EXPECT_EQ((*p)[4], (Point{{"rows", "32"}, {"dtype", "f32"}, {"cols", "320"}}));
}

TEST(ExpandPoints, RefusesAZipOfUnequalLengths) {
  absl::StatusOr<std::vector<Point>> p =
      ExpandPoints({{"rows", {"8", "16"}}, {"cols", {"1", "2", "3"}}}, {"rows", "cols"});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("rows has 2"), std::string::npos) << p.status();
  EXPECT_NE(p.status().message().find("cols has 3"), std::string::npos) << p.status();
}

TEST(ExpandPoints, RefusesBadZipsAndDuplicateAxes) {
  const std::vector<Axis> axes = {{"rows", {"8"}}, {"cols", {"1"}}};
  EXPECT_EQ(ExpandPoints(axes, {"rows"}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ExpandPoints(axes, {"rows", "k"}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ExpandPoints({{"rows", {"8"}}, {"rows", {"9"}}}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ExpandPoints, RefusesMorePointsThanTheCap) {
  std::vector<std::string> forty;
  for (int i = 0; i < 40; ++i) forty.push_back(std::to_string(i));
  // 40 x 40 = 1600 > 1000; 40 x 25 = 1000 is accepted.
  absl::StatusOr<std::vector<Point>> over = ExpandPoints({{"a", forty}, {"b", forty}}, {});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("1000"), std::string::npos) << over.status();
  std::vector<std::string> twenty_five(forty.begin(), forty.begin() + 25);
  absl::StatusOr<std::vector<Point>> at = ExpandPoints({{"a", forty}, {"b", twenty_five}}, {});
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->size(), 1000u);
}

TEST(ExpandPoints, NeverOverflowsOnHugeProducts) {
  std::vector<std::string> many(1000, "x");
  for (size_t i = 0; i < many.size(); ++i) many[i] = std::to_string(i);
  std::vector<Axis> axes;
  for (int a = 0; a < 8; ++a) axes.push_back({"a" + std::to_string(a), many});
  EXPECT_EQ(ExpandPoints(axes, {}).status().code(), absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace kbench::sweep
