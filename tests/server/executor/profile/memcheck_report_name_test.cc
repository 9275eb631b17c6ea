// A sanitize pass's report file (issue 24, item 2): a well-formed user variant's name gives
// memcheck_<name>.txt as the proto documents; a hostile one, as a job stored before the name
// rule may hold, never reaches the file system: the report is named by the variant's position.
#include <set>

#include "gtest/gtest.h"
#include "server/executor/profile/sanitize_job.h"
#include "tests/hostile_names.h"

namespace kbench::executor::profile {
namespace {

TEST(MemcheckReportName, IsTheNameForAWellFormedVariant) {
  EXPECT_EQ(MemcheckReportName("@my.kernel", 2), "memcheck_my.kernel.txt");
  EXPECT_EQ(MemcheckReportName("@user", 0), "memcheck_user.txt");
}

TEST(MemcheckReportName, IsThePositionForAHostileVariant) {
  std::set<std::string> names;
  int position = 0;
  for (const std::string& variant : testing::HostileNames("/tmp/kbench-marker")) {
    const std::string name = MemcheckReportName(variant, position++);
    EXPECT_EQ(name, "memcheck_+" + std::to_string(position - 1) + ".txt") << variant;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(position));      // one file per variant
  EXPECT_EQ(MemcheckReportName("@..", 3), "memcheck_...txt");  // one component, no traversal
}

}  // namespace
}  // namespace kbench::executor::profile
