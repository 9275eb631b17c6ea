// Unit (issue 24, items 3 and 5): which artifacts are derived from user code and who reads them,
// what a viewer sees of another owner's error, and the 16 KiB bound on a job's error.
#include "server/api/artifact_access.h"

#include "gtest/gtest.h"
#include "server/common/job_error.h"

namespace kbench::api {
namespace {

auth::Identity User(const std::string& name) { return {name, auth::Role::kUser}; }

v1::JobSpec CatalogueOnly() {
  v1::JobSpec spec;
  spec.set_owner("alice");
  spec.add_variants("fused");
  return spec;
}

v1::JobSpec WithUserCode() {
  v1::JobSpec spec = CatalogueOnly();
  spec.add_variants("@mine");
  spec.add_user_kernels()->set_name("@mine");
  spec.add_code_owners("alice");
  return spec;
}

TEST(ArtifactAccess, ACatalogueJobsArtifactsAreEveryones) {
  EXPECT_FALSE(CarriesUserCode(CatalogueOnly()));
  EXPECT_FALSE(IsOwnerOnlyArtifact(CatalogueOnly(), "trace.json"));
  EXPECT_TRUE(DecideArtifactRead(User("bob"), CatalogueOnly(), "j-1", "ncu_fused.ncu-rep").ok());
}

TEST(ArtifactAccess, WhatUserCodeProducedIsItsOwnersAndTheAdmins) {
  const v1::JobSpec spec = WithUserCode();
  for (const char* name : {"module.ptx", "module.cubin", "sass.txt", "compile.log", "error.log",
                           "memcheck_mine.txt", "ncu_raw.csv", "trace.json", "anything.new"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(IsOwnerOnlyArtifact(spec, name));
    EXPECT_TRUE(DecideArtifactRead(User("alice"), spec, "j-1", name).ok());
    EXPECT_TRUE(DecideArtifactRead({"root", auth::Role::kAdmin}, spec, "j-1", name).ok());
    const absl::Status bob = DecideArtifactRead(User("bob"), spec, "j-1", name);
    EXPECT_EQ(bob.code(), absl::StatusCode::kPermissionDenied);
    EXPECT_NE(bob.message().find("'alice'"), absl::string_view::npos) << bob;
  }
  EXPECT_FALSE(IsOwnerOnlyArtifact(spec, "samples.csv"));
  EXPECT_TRUE(DecideArtifactRead(User("bob"), spec, "j-1", "samples.csv").ok());
}

// Bob ran alice's registered variant: what it compiled to is still alice's, not bob's.
TEST(ArtifactAccess, AJobOwnerDoesNotReadAnotherOwnersRegisteredCode) {
  v1::JobSpec spec = WithUserCode();
  spec.set_owner("bob");
  spec.clear_code_owners();
  spec.add_code_owners("alice");
  EXPECT_FALSE(MayReadCode(User("bob"), spec));
  EXPECT_TRUE(MayReadCode(User("alice"), spec));
  spec.add_code_owners("bob");  // bob's kernel beside alice's: neither reads the mix alone
  EXPECT_FALSE(MayReadCode(User("bob"), spec));
  EXPECT_FALSE(MayReadCode(User("alice"), spec));
}

TEST(ArtifactAccess, AJobStoredBeforeCodeOwnersRanItsOwnersCode) {
  v1::JobSpec spec = WithUserCode();
  spec.clear_code_owners();
  EXPECT_TRUE(MayReadCode(User("alice"), spec));
  EXPECT_FALSE(MayReadCode(User("bob"), spec));
}

TEST(ArtifactAccess, AnotherOwnersErrorIsRedactedButItsCodeKept) {
  v1::Job job;
  *job.mutable_spec() = WithUserCode();
  job.set_error("kernel.cu(3): error: identifier \"secret_sauce\" is undefined");
  job.set_error_code("INVALID_ARGUMENT");
  job.add_artifacts()->set_name("module.ptx");
  job.add_artifacts()->set_name("samples.csv");
  MarkOwnerOnlyArtifacts(&job);
  EXPECT_TRUE(job.artifacts(0).owner_only());
  EXPECT_FALSE(job.artifacts(1).owner_only());
  v1::Job for_alice = job;
  RedactForViewer(User("alice"), &for_alice);
  EXPECT_EQ(for_alice.error(), job.error());
  v1::Job for_bob = job;
  RedactForViewer(User("bob"), &for_bob);
  EXPECT_EQ(for_bob.error().find("secret_sauce"), std::string::npos) << for_bob.error();
  EXPECT_NE(for_bob.error().find("INVALID_ARGUMENT"), std::string::npos);
  v1::Job catalogue;
  *catalogue.mutable_spec() = CatalogueOnly();
  catalogue.set_error("correctness: fused does not match");
  RedactForViewer(User("bob"), &catalogue);
  EXPECT_EQ(catalogue.error(), "correctness: fused does not match");
}

TEST(BoundedJobError, KeepsShortMessagesAndCutsLongOnesAtACharacter) {
  EXPECT_EQ(BoundedJobError("short", "the artifact error.log"), "short");
  // 'é' is two bytes: a cut anywhere must not leave half of one.
  std::string long_message;
  while (long_message.size() < 3 * kMaxJobErrorBytes) long_message += "é";
  const std::string bounded = BoundedJobError(long_message, "the job's artifact error.log");
  EXPECT_LE(bounded.size(), kMaxJobErrorBytes);
  EXPECT_GT(bounded.size(), kMaxJobErrorBytes - 200);
  EXPECT_NE(bounded.find("the whole message is 49152 bytes; it is the job's artifact error.log"),
            std::string::npos)
      << bounded.substr(bounded.size() - 200);
  const size_t cut = bounded.find('\n');
  ASSERT_NE(cut, std::string::npos);
  EXPECT_EQ(cut % 2, 0u);  // whole two-byte characters before the note
  EXPECT_NE(BoundedJobError(long_message, "").find("bytes)"), std::string::npos);
}

// A job whose kernels' code does not fit in a reply (a 32 MiB cubin; 4 MiB a reply) is refused
// naming both sizes and the way round, not left to the transport's bare refusal.
TEST(ArtifactAccess, CodeBeyondTheReplyBoundIsRefusedNamingTheSizesAndTheWayRound) {
  v1::Job job;
  job.set_id("j-big");
  *job.mutable_spec() = WithUserCode();
  job.mutable_spec()->mutable_user_kernels(0)->set_code(std::string(5 << 20, 'x'));
  const int64_t bound = 4 << 20;
  absl::StatusOr<v1::Job> refused = WithinReplyBound(job, bound);
  ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("job j-big with its kernels' code is 5.0 MiB, above "
                                            "the 4.0 MiB a reply may carry"),
            std::string::npos)
      << refused.status();
  EXPECT_NE(refused.status().message().find("--code FILE"), std::string::npos);
  job.mutable_spec()->mutable_user_kernels(0)->set_code(std::string(3 << 20, 'x'));
  EXPECT_TRUE(WithinReplyBound(job, bound).ok());
}

}  // namespace
}  // namespace kbench::api
