// Request size caps: oversized strings and specs are refused naming the field, quoting only a
// short prefix of the value.
#include "server/api/request_limits.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::api {
namespace {

using ::testing::HasSubstr;

v1::SubmitJobRequest Request() {
  v1::SubmitJobRequest r;
  r.mutable_spec()->set_kernel("softmax");
  r.mutable_spec()->add_variants("host_rowwise");
  r.mutable_spec()->add_shape(64);
  r.mutable_spec()->add_shape(64);
  return r;
}

TEST(CheckRequestSize, AcceptsAnOrdinarySubmit) { EXPECT_TRUE(CheckRequestSize(Request()).ok()); }

TEST(CheckRequestSize, RefusesAMebibyteOwnerQuotingAShortPrefix) {
  v1::SubmitJobRequest r = Request();
  r.mutable_spec()->set_owner(std::string(1 << 20, 'o'));
  const absl::Status s = CheckRequestSize(r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.owner"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("(1048576 bytes)"));
  EXPECT_LT(s.message().size(), 200u) << s.message();
}

TEST(CheckRequestSize, RefusesAMebibyteKernelName) {
  v1::SubmitJobRequest r = Request();
  r.mutable_spec()->set_kernel(std::string(1 << 20, 'k'));
  const absl::Status s = CheckRequestSize(r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec.kernel"));
  EXPECT_LT(s.message().size(), 200u) << s.message();
}

TEST(CheckRequestSize, RefusesLongVariantParamNameAndIdempotencyKey) {
  v1::SubmitJobRequest variant = Request();
  variant.mutable_spec()->add_variants(std::string(kMaxNameBytes + 1, 'v'));
  EXPECT_THAT(std::string(CheckRequestSize(variant).message()), HasSubstr("spec.variants"));
  v1::SubmitJobRequest param = Request();
  (*param.mutable_spec()->mutable_params())[std::string(kMaxNameBytes + 1, 'p')] = 1;
  EXPECT_THAT(std::string(CheckRequestSize(param).message()), HasSubstr("spec.params"));
  v1::SubmitJobRequest key = Request();
  key.set_idempotency_key(std::string(kMaxIdempotencyKeyBytes + 1, 'i'));
  EXPECT_THAT(std::string(CheckRequestSize(key).message()), HasSubstr("idempotency_key"));
}

TEST(CheckRequestSize, RefusesTooManyShapeDimsAndVariants) {
  v1::SubmitJobRequest shape = Request();
  for (int i = 0; i < kMaxShapeRank; ++i) shape.mutable_spec()->add_shape(1);
  EXPECT_THAT(std::string(CheckRequestSize(shape).message()), HasSubstr("spec.shape"));
  v1::SubmitJobRequest variants = Request();
  for (int i = 0; i < kMaxVariants; ++i) variants.mutable_spec()->add_variants("v");
  EXPECT_THAT(std::string(CheckRequestSize(variants).message()), HasSubstr("spec.variants"));
}

TEST(CheckRequestSize, RefusesASpecOverItsByteCapEvenWithShortStrings) {
  v1::SubmitJobRequest r = Request();
  // Unknown fields count towards the spec's size too.
  r.mutable_spec()
      ->GetReflection()
      ->MutableUnknownFields(r.mutable_spec())
      ->AddLengthDelimited(999, std::string(kMaxSpecBytes, 'u'));
  const absl::Status s = CheckRequestSize(r);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("spec: "));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("; the largest field is unknown field spec.999 (16389 bytes)"));
}

TEST(CheckRequestSize, ASpecOverItsByteCapNamesItsLargestField) {
  v1::SubmitJobRequest r = Request();
  r.mutable_spec()->set_confirms_job(std::string(kMaxSpecBytes, 'j'));
  EXPECT_EQ(std::string(CheckRequestSize(r).message()),
            "spec: 16416 bytes serialized; at most 16384 are accepted; the largest field is "
            "spec.confirms_job (16389 bytes)");
}

TEST(CheckRequestSize, TheLargestFieldLeavesOutUserKernelsCodeAsTheCapDoes) {
  v1::SubmitJobRequest r = Request();
  r.mutable_spec()->add_user_kernels()->set_code(std::string(1 << 20, 'c'));
  for (int i = 0; i < 3; ++i) r.mutable_spec()->add_code_owners(std::string(6000, 'o'));
  EXPECT_THAT(std::string(CheckRequestSize(r).message()),
              HasSubstr("; the largest field is spec.code_owners (18012 bytes)"));
}

TEST(CheckRequestSize, AVariantsKernelOverItsByteCapNamesItsLargestFieldButCode) {
  v1::AddVariantRequest r;
  r.set_operation("softmax");
  r.mutable_kernel()->set_name("@mine");
  r.mutable_kernel()->set_code(std::string(1 << 20, 'c'));
  r.mutable_kernel()->set_entry(std::string(kMaxSpecBytes, 'e'));
  EXPECT_THAT(std::string(CheckRequestSize(r).message()),
              HasSubstr("; the largest field is kernel.entry (16388 bytes)"));
}

TEST(CheckRequestSize, RefusesLongListFiltersAndArtifactNames) {
  v1::ListJobsRequest list;
  list.set_page_token(std::string(kMaxPageTokenBytes + 1, 't'));
  EXPECT_THAT(std::string(CheckRequestSize(list).message()), HasSubstr("page_token"));
  v1::GetArtifactRequest artifact;
  artifact.set_job_id("j-1");
  artifact.set_name(std::string(kMaxNameBytes + 1, 'n'));
  EXPECT_THAT(std::string(CheckRequestSize(artifact).message()), HasSubstr("name"));
  EXPECT_EQ(CheckJobId(std::string(1 << 20, 'j')).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckJobId("").code(), absl::StatusCode::kInvalidArgument);
}

TEST(QuotePrefix, QuotesShortValuesWholeAndLongOnesByPrefixAndSize) {
  EXPECT_EQ(QuotePrefix("abc"), "'abc'");
  EXPECT_EQ(QuotePrefix(std::string(100, 'x')), "'" + std::string(32, 'x') + "...' (100 bytes)");
}

}  // namespace
}  // namespace kbench::api
