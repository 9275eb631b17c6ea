// Tests of kbctl's argument parsers: shapes, enum names, devices, params, numbers, durations.
#include "client/args.h"

#include <limits>

#include "client/errors.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

void ExpectUsageError(const absl::Status& s, const std::string& fragment) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(ExitCodeFor(s), ExitCode::kUsage) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(fragment));
}

TEST(ParseShape, AcceptsTwoAndThreeDimensions) {
  EXPECT_THAT(*ParseShape("--shape", "4096x4096"), ElementsAre(4096, 4096));
  EXPECT_THAT(*ParseShape("--shape", "1024x1024x512"), ElementsAre(1024, 1024, 512));
}

TEST(ParseShape, AcceptsOneDimensionUpperCaseXAndCommas) {
  EXPECT_THAT(*ParseShape("--shape", "1048576"), ElementsAre(1048576));
  EXPECT_THAT(*ParseShape("--shape", "8X1024"), ElementsAre(8, 1024));
  EXPECT_THAT(*ParseShape("--shape", "3,5,7"), ElementsAre(3, 5, 7));
}

TEST(ParseShape, RejectsEmptyText) {
  ExpectUsageError(ParseShape("--shape", "").status(), "--shape: empty");
}

TEST(ParseShape, RejectsEmptyDimensionNamingItsPosition) {
  ExpectUsageError(ParseShape("--shape", "4096xx2").status(), "dimension 2 is empty");
  ExpectUsageError(ParseShape("--shape", "4096x").status(), "dimension 2 is empty");
}

TEST(ParseShape, RejectsZeroAndNegativeDimensions) {
  ExpectUsageError(ParseShape("--shape", "0x4").status(), "dimension 1 is 0");
  ExpectUsageError(ParseShape("--shape", "4x-3").status(), "dimension 2 (-3) is negative");
}

TEST(ParseShape, RejectsNonNumbers) {
  ExpectUsageError(ParseShape("--shape", "4096xabc").status(), "\"abc\") is not a whole number");
  ExpectUsageError(ParseShape("--shape", "1.5x2").status(), "is not a whole number");
  ExpectUsageError(ParseShape("--shape", "+4x2").status(), "is not a whole number");
}

TEST(ParseShape, RejectsDimensionBeyondInt64) {
  ExpectUsageError(ParseShape("--shape", "99999999999999999999").status(),
                   "does not fit in 64 bits");
}

TEST(ParseShape, RejectsElementCountBeyondInt64) {
  ExpectUsageError(ParseShape("--shape", "4294967296x4294967296").status(),
                   "number of elements does not fit in 64 bits");
  EXPECT_TRUE(ParseShape("--shape", "2147483648x2147483647").ok());
}

TEST(ParseShape, RejectsTooManyDimensions) {
  ExpectUsageError(ParseShape("--shape", "1x1x1x1x1x1x1x1x1").status(), "9 dimensions");
}

TEST(ParseShape, ErrorNamesTheFlagAndValue) {
  const absl::Status s = ParseShape("--shape", "7xq").status();
  EXPECT_THAT(std::string(s.message()), HasSubstr("--shape \"7xq\""));
}

TEST(ShapeString, JoinsWithX) {
  EXPECT_EQ(ShapeString({1024, 1024, 512}), "1024x1024x512");
  EXPECT_EQ(ShapeString({}), "-");
}

TEST(ParseDType, AcceptsShortAndProtoNamesInAnyCase) {
  EXPECT_EQ(*ParseDType("--dtype", "f32"), v1::DTYPE_F32);
  EXPECT_EQ(*ParseDType("--dtype", "BF16"), v1::DTYPE_BF16);
  EXPECT_EQ(*ParseDType("--dtype", "DTYPE_TF32"), v1::DTYPE_TF32);
}

TEST(ParseDType, RejectsUnknownAndUnspecifiedListingChoices) {
  ExpectUsageError(ParseDType("--dtype", "f64").status(),
                   "unknown value \"f64\"; expected one of f32, f16, bf16, tf32");
  ExpectUsageError(ParseDType("--dtype", "unspecified").status(), "unknown value");
}

TEST(ParseMode, AcceptsColdHotGraph) {
  EXPECT_EQ(*ParseMode("--mode", "cold"), v1::MEASURE_MODE_COLD);
  EXPECT_EQ(*ParseMode("--mode", "hot"), v1::MEASURE_MODE_HOT);
  EXPECT_EQ(*ParseMode("--mode", "graph"), v1::MEASURE_MODE_GRAPH);
  ExpectUsageError(ParseMode("--mode", "warm").status(), "--mode: unknown value \"warm\"");
}

TEST(ParseJobState, AcceptsLowerCaseStates) {
  EXPECT_EQ(*ParseJobState("--state", "failed"), v1::JOB_STATE_FAILED);
  ExpectUsageError(ParseJobState("--state", "done").status(), "queued, running");
}

TEST(ParseDevice, AcceptsCpuCudaIndexAndAny) {
  EXPECT_EQ(*ParseDevice("--device", "cpu"), "cpu");
  EXPECT_EQ(*ParseDevice("--device", "cuda:0"), "cuda:0");
  EXPECT_EQ(*ParseDevice("--device", "CUDA:12"), "cuda:12");
  EXPECT_EQ(*ParseDevice("--device", "cuda:any"), "cuda:any");
  EXPECT_EQ(*ParseDevice("--device", "cuda"), "cuda:any");
}

TEST(ParseDevice, AcceptsAFleetsNodeDevicesAndKindsOfDevice) {
  EXPECT_EQ(*ParseDevice("--device", "gpu-B/CUDA:1"), "gpu-B/cuda:1");
  EXPECT_EQ(*ParseDevice("--device", "a/cpu"), "a/cpu");
  EXPECT_EQ(*ParseDevice("--device", " cpu:any "), "cpu:any");
  EXPECT_EQ(*ParseDevice("--device", "H100:any"), "h100:any");
}

TEST(ParseDevice, RejectsOtherNames) {
  ExpectUsageError(ParseDevice("--device", "gpu").status(), "unknown device \"gpu\"");
  ExpectUsageError(ParseDevice("--device", "cuda:").status(), "unknown device");
  ExpectUsageError(ParseDevice("--device", "cuda:-1").status(), "unknown device");
  ExpectUsageError(ParseDevice("--device", "/cuda:0").status(), "NODE/DEVICE");
  ExpectUsageError(ParseDevice("--device", "a/gpu").status(), "unknown device");
  ExpectUsageError(ParseDevice("--device", "a/b/cpu").status(), "unknown device");
  ExpectUsageError(ParseDevice("--device", ":any").status(), "KIND:any");
  ExpectUsageError(ParseDevice("--device", "h 100:any").status(), "unknown device");
}

TEST(EnumNames, AreLowerCaseWithoutPrefix) {
  EXPECT_EQ(DTypeName(v1::DTYPE_BF16), "bf16");
  EXPECT_EQ(StateName(v1::JOB_STATE_SUCCEEDED), "succeeded");
  EXPECT_EQ(KindName(v1::JOB_KIND_PROFILE), "profile");
  EXPECT_EQ(ModeName(v1::MEASURE_MODE_UNSPECIFIED), "-");
}

TEST(ParseParams, AcceptsRepeatedAndCommaSeparatedPairs) {
  auto params = ParseParams("--param", {"layers=4", "dim=256,batch=-1"});
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(params->at("layers"), 4);
  EXPECT_EQ(params->at("dim"), 256);
  EXPECT_EQ(params->at("batch"), -1);
}

TEST(ParseParams, RejectsMissingValueNonIntegerAndDuplicates) {
  ExpectUsageError(ParseParams("--param", {"layers"}).status(), "expected name=value");
  ExpectUsageError(ParseParams("--param", {"=4"}).status(), "expected name=value");
  ExpectUsageError(ParseParams("--param", {"layers=four"}).status(),
                   "value \"four\" is not a 64-bit integer");
  ExpectUsageError(ParseParams("--param", {"a=1", "a=2"}).status(), "\"a\" given twice");
}

TEST(ParseNameList, SplitsTrimsAndRejectsEmptiesAndDuplicates) {
  EXPECT_THAT(*ParseNameList("--variants", {"naive, fused", "online"}),
              ElementsAre("naive", "fused", "online"));
  ExpectUsageError(ParseNameList("--variants", {"a,,b"}).status(), "empty name");
  ExpectUsageError(ParseNameList("--variants", {"a,b,a"}).status(), "\"a\" listed twice");
}

TEST(ParseInt, ChecksSyntaxAndRange) {
  EXPECT_EQ(*ParseInt("--limit", "10", 1, 1000), 10);
  ExpectUsageError(ParseInt("--limit", "ten", 1, 1000).status(), "\"ten\" is not an integer");
  ExpectUsageError(ParseInt("--limit", "0", 1, 1000).status(), "0 is out of range [1, 1000]");
}

TEST(ParseUint64, AcceptsFullRangeAndRejectsNegative) {
  EXPECT_EQ(*ParseUint64("--seed", "18446744073709551615"), std::numeric_limits<uint64_t>::max());
  ExpectUsageError(ParseUint64("--seed", "-1").status(), "not an unsigned 64-bit integer");
}

TEST(ParseSeconds, AcceptsPlainNumbersAndDurations) {
  EXPECT_DOUBLE_EQ(*ParseSeconds("--min-time", "0.5", false), 0.5);
  EXPECT_DOUBLE_EQ(*ParseSeconds("--min-time", "250ms", false), 0.25);
  EXPECT_DOUBLE_EQ(*ParseSeconds("--timeout-s", "2m", false), 120);
  EXPECT_DOUBLE_EQ(*ParseSeconds("--min-time", "0", true), 0);
}

TEST(ParseSeconds, RejectsZeroNegativeAndGarbage) {
  ExpectUsageError(ParseSeconds("--timeout-s", "0", false).status(), "greater than zero");
  ExpectUsageError(ParseSeconds("--timeout-s", "-1", false).status(), "is negative");
  ExpectUsageError(ParseSeconds("--timeout-s", "soon", false).status(), "is not a duration");
  ExpectUsageError(ParseSeconds("--timeout-s", "inf", false).status(), "not a finite");
}

TEST(ParseFraction, AcceptsFractionsAndPercentages) {
  EXPECT_DOUBLE_EQ(*ParseFraction("--max-noise", "0.005"), 0.005);
  EXPECT_DOUBLE_EQ(*ParseFraction("--max-noise", "0.5%"), 0.005);
  ExpectUsageError(ParseFraction("--max-noise", "0").status(), "outside (0, 1)");
  ExpectUsageError(ParseFraction("--max-noise", "150%").status(), "outside (0, 1)");
  ExpectUsageError(ParseFraction("--max-noise", "low").status(), "is not a number");
}

}  // namespace
}  // namespace kbench::client
