// kbctl bisect's versions: how a --versions item is read, the A/B request of two versions (a
// file becomes a named user kernel), and --build/--revs on a real git repository built by a
// real shell command.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "client/bisect/git_builds.h"
#include "client/bisect/versions.h"

namespace kbench::client {
namespace {

TEST(BisectVersions, ReadsRegisteredNamesFilesAndCatalogueVariants) {
  absl::StatusOr<std::vector<Version>> v =
      ParseVersionList({"naive,@mine,kernels/v2.cu", "v3.ptx"});
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->size(), 4u);
  EXPECT_EQ((*v)[0].kind, VersionKind::kVariant);
  EXPECT_EQ((*v)[0].variant, "naive");
  EXPECT_EQ((*v)[1].kind, VersionKind::kVariant);
  EXPECT_EQ((*v)[1].variant, "@mine");
  EXPECT_EQ((*v)[2].kind, VersionKind::kFile);
  EXPECT_EQ((*v)[2].path, "kernels/v2.cu");
  EXPECT_EQ((*v)[3].kind, VersionKind::kFile);
}

TEST(BisectVersions, ShapeVersionsNeedAVariantAndNeverShareAJob) {
  EXPECT_FALSE(ParseShapeVersions("", {"8x8", "9x8"}).ok());
  absl::StatusOr<std::vector<Version>> v = ParseShapeVersions("host_loop", {"8x8", "9x8"});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)[1].label, "9x8");
  EXPECT_FALSE(ShareAJob((*v)[0], (*v)[1]));
  v1::SubmitJobRequest base;
  base.mutable_spec()->set_kernel("square");
  const v1::SubmitJobRequest one = SingleRequest(base, (*v)[1]);
  EXPECT_EQ(one.spec().variants(0), "host_loop");
  EXPECT_EQ(one.spec().shape(0), 9);
}

TEST(BisectVersions, SharedRequestTimesTheGoodVersionFirstAndAFileAsAUserKernel) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("kbench_bisect_" + std::to_string(getpid()) + ".cu");
  std::ofstream(file) << "extern \"C\" __global__ void k() {}\n";
  Version good;
  good.variant = "naive";
  good.label = "naive";
  Version candidate;
  candidate.kind = VersionKind::kFile;
  candidate.path = file.string();
  UserKernelFlags launch;
  launch.entry = "k";
  launch.grid = {"1"};
  launch.block = {"32"};
  v1::SubmitJobRequest base;
  base.mutable_spec()->set_kernel("square");
  absl::StatusOr<v1::SubmitJobRequest> r = SharedRequest(base, launch, good, candidate, 3);
  std::filesystem::remove(file);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->spec().variants_size(), 2);
  EXPECT_EQ(r->spec().variants(0), "naive");
  EXPECT_EQ(r->spec().variants(1), "@bisect-3");
  ASSERT_EQ(r->spec().user_kernels_size(), 1);
  EXPECT_EQ(r->spec().user_kernels(0).name(), "@bisect-3");
  EXPECT_EQ(r->spec().user_kernels(0).entry(), "k");
  // The same catalogue variant on both sides is refused.
  EXPECT_FALSE(SharedRequest(base, launch, good, good, 1).ok());
}

// A git repository of three commits in a temporary directory, the test's working directory.
class BisectRevisionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("kbench_bisect_git_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_);
    ASSERT_EQ(Shell("git init -q . && git config user.email t@t && git config user.name t"), 0);
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(Shell("echo v" + std::to_string(i) +
                      " > k.txt && git add k.txt && git commit -qm c" + std::to_string(i)),
                0);
    }
  }
  void TearDown() override {
    std::filesystem::current_path(previous_);
    std::filesystem::remove_all(dir_);
  }
  static int Shell(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str());
  }

  std::filesystem::path dir_;
  std::filesystem::path previous_;
};

TEST_F(BisectRevisionsTest, ListsGoodThenTheRangeOldestFirstAndBuildsOnDemand) {
  absl::StatusOr<std::vector<Version>> v = RevisionVersions("HEAD~2..HEAD");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->size(), 3u);
  for (const Version& r : *v) {
    EXPECT_EQ(r.kind, VersionKind::kRevision);
    EXPECT_EQ(r.revision.size(), 40u);
  }
  // The build: the file of the revision, its path the last line on stdout.
  RevisionBuilder builder(
      "echo building {rev}; git show {rev}:k.txt > out-{rev}.txt; "
      "echo \"$PWD/out-{rev}.txt\"",
      dir_.string(), 30);
  absl::StatusOr<std::string> path = builder.PathFor((*v)[2].revision);
  ASSERT_TRUE(path.ok()) << path.status();
  std::ifstream built(*path);
  std::string text;
  std::getline(built, text);
  EXPECT_EQ(text, "v2");
}

TEST_F(BisectRevisionsTest, RefusesAMalformedRangeAndABuildThatNamesNoFile) {
  EXPECT_FALSE(RevisionVersions("HEAD").ok());
  EXPECT_FALSE(RevisionVersions("nosuch..HEAD").ok());
  absl::StatusOr<std::vector<Version>> v = RevisionVersions("HEAD~1..HEAD");
  ASSERT_TRUE(v.ok()) << v.status();
  RevisionBuilder no_file("echo /nonexistent/{rev}", dir_.string(), 30);
  EXPECT_EQ(no_file.PathFor((*v)[1].revision).status().code(),
            absl::StatusCode::kFailedPrecondition);
  RevisionBuilder failing("exit 3", dir_.string(), 30);
  EXPECT_FALSE(failing.PathFor((*v)[1].revision).ok());
}

}  // namespace
}  // namespace kbench::client
