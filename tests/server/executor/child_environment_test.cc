// Children's environments (issue 24, item 1): empty but for a named list, whatever the parent's.
#include "server/common/child_environment.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace kbench {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

bool HasName(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(),
                     [&](const std::string& e) { return e.rfind(name + "=", 0) == 0; });
}

void ExpectNoSecret(const std::vector<std::string>& env) {
  EXPECT_FALSE(HasName(env, "PGPASSWORD"));
  EXPECT_FALSE(HasName(env, "KBENCH_TOKEN"));
  EXPECT_TRUE(Has(env, "CUDA_VISIBLE_DEVICES=1"));
}

const char* const kParent[] = {"PGPASSWORD=hunter2",
                               "KBENCH_TOKEN=secret",
                               "CUDA_VISIBLE_DEVICES=1",
                               "PATH=/home/x/bin:/usr/bin",
                               "HOME=/home/x",
                               "LD_LIBRARY_PATH=/tmp/evil:/usr/local/cuda/lib64:/opt/nvidia/lib",
                               "KBENCH_CUDA_INCLUDE_DIR=/opt/cuda/include",
                               nullptr};

TEST(ChildEnvironment, AToolGetsOnlyTheNamedListAndItsWorkDirectory) {
  const std::vector<std::string> env = BuildChildEnvironment(ToolEnvironment("/w"), kParent);
  ExpectNoSecret(env);
  EXPECT_TRUE(Has(env, "PATH=/usr/local/cuda/bin:/usr/bin:/bin"));
  EXPECT_TRUE(Has(env, "HOME=/w"));
  EXPECT_TRUE(Has(env, "TMPDIR=/w"));
  EXPECT_TRUE(Has(env, "KBENCH_CUDA_INCLUDE_DIR=/opt/cuda/include"));
}

// The operator's library path reaches the executor whole: a bundle's lib/ folder is on it.
TEST(ChildEnvironment, LibraryPathIsKbenchdsOwnWhole) {
  const char* const parent[] = {"LD_LIBRARY_PATH=/opt/kbench/lib:/usr/local/cuda/lib64",
                                "PGPASSWORD=hunter2", nullptr};
  for (const ChildEnvironmentSpec& spec : {ToolEnvironment("/w"), ExecutorEnvironment()}) {
    const std::vector<std::string> env = BuildChildEnvironment(spec, parent);
    EXPECT_TRUE(Has(env, "LD_LIBRARY_PATH=/opt/kbench/lib:/usr/local/cuda/lib64"));
    EXPECT_FALSE(HasName(env, "PGPASSWORD"));
  }
}

TEST(ChildEnvironment, AnExecutorKeepsCudaAndPathButNoSecret) {
  const std::vector<std::string> env = BuildChildEnvironment(ExecutorEnvironment(), kParent);
  ExpectNoSecret(env);
  EXPECT_TRUE(Has(env, "PATH=/home/x/bin:/usr/bin"));
  EXPECT_TRUE(Has(env, "HOME=/home/x"));
}

TEST(ChildEnvironment, AnEmptyParentGivesOnlyTheFixedValues) {
  const char* const empty[] = {nullptr};
  EXPECT_EQ(BuildChildEnvironment(ExecutorEnvironment(), empty).size(), 0u);
  EXPECT_EQ(BuildChildEnvironment(ToolEnvironment("/w"), empty).size(), 4u);
}

}  // namespace
}  // namespace kbench
