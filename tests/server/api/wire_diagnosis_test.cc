// The diagnosis of requests protobuf refuses (server/api/wire_diagnosis.h), on hand-made wire
// bytes. Every case also asks protobuf itself: the diagnosis names a defect exactly when the
// parser refuses the bytes.
#include "server/api/wire_diagnosis.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "kbench/v1/history.pb.h"
#include "kbench/v1/service.pb.h"
#include "tests/malformed_requests.h"
#include "tests/wire_bytes.h"

namespace kbench::api {
namespace {

using ::testing::HasSubstr;
using testing::wire::kEndGroup;
using testing::wire::kFixed64;
using testing::wire::kStartGroup;
using testing::wire::LengthDelimited;
using testing::wire::NestedGroups;
using testing::wire::Tag;
using testing::wire::Varint;
using testing::wire::VarintField;

// Invalid UTF-8 is this test's input: protobuf's log line for each is noise here.
[[maybe_unused]] const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

// The diagnosis of `bytes` as an `M`, after checking that protobuf refuses them.
template <class M>
std::string RefusalOf(const std::string& bytes) {
  M message;
  EXPECT_FALSE(message.ParseFromString(bytes)) << "protobuf accepts the bytes";
  const absl::Status status = DiagnoseWireFormat(bytes, *M::descriptor());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

// True when protobuf accepts `bytes` as an `M` and the diagnosis finds nothing either.
template <class M>
bool BothAccept(const std::string& bytes) {
  M message;
  const bool parsed = message.ParseFromString(bytes);
  const absl::Status status = DiagnoseWireFormat(bytes, *M::descriptor());
  EXPECT_EQ(parsed, status.ok()) << "protobuf " << (parsed ? "accepts" : "refuses") << "; "
                                 << status;
  return parsed && status.ok();
}

std::string Spec(const std::string& fields) { return LengthDelimited(1, fields); }

TEST(WireDiagnosis, NamesTheDefectOfEachOfIssueTwentyFivesRequests) {
  const google::protobuf::DescriptorPool& pool =
      *google::protobuf::DescriptorPool::generated_pool();
  for (const testing::MalformedRequest& request : testing::IssueTwentyFiveMalformedRequests()) {
    const google::protobuf::Descriptor* type = pool.FindMessageTypeByName(request.request_type);
    ASSERT_NE(type, nullptr) << request.request_type;
    const absl::Status status = DiagnoseWireFormat(request.bytes, *type);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << request.what;
    EXPECT_EQ(status.message(), request.refusal) << request.what;
  }
}

TEST(WireDiagnosis, ProtobufRefusesEachOfIssueTwentyFivesRequests) {
  const google::protobuf::DescriptorPool& pool =
      *google::protobuf::DescriptorPool::generated_pool();
  for (const testing::MalformedRequest& request : testing::IssueTwentyFiveMalformedRequests()) {
    const google::protobuf::Message* prototype =
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(
            pool.FindMessageTypeByName(request.request_type));
    std::unique_ptr<google::protobuf::Message> message(prototype->New());
    EXPECT_FALSE(message->ParseFromString(request.bytes)) << request.what;
  }
}

TEST(WireDiagnosis, AcceptsWellFormedRequests) {
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(testing::WellFormedSubmit()));
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(""));
  EXPECT_TRUE(BothAccept<v1::ListJobsRequest>(LengthDelimited(2, "caf\xc3\xa9 \xe2\x98\x83")));
}

TEST(WireDiagnosis, AcceptsUnknownFieldsAsProtobufDoes) {
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(VarintField(99, 7) + LengthDelimited(98, "\xff") +
                                               Tag(97, kFixed64) + std::string(8, 'x') +
                                               NestedGroups(96, 3)));
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(Spec(LengthDelimited(99, "\xff"))));
}

TEST(WireDiagnosis, AcceptsAKnownFieldOfAnotherWireTypeAsProtobufKeepsItUnknown) {
  // spec.kernel (a string) as a varint; spec.seed (a varint) length-delimited, not UTF-8.
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(Spec(VarintField(2, 5))));
  EXPECT_TRUE(BothAccept<v1::SubmitJobRequest>(Spec(LengthDelimited(10, "\xff"))));
}

TEST(WireDiagnosis, NestsAsDeepAsProtobufAndNoDeeper) {
  EXPECT_TRUE(BothAccept<v1::GetJobRequest>(NestedGroups(15, kMaxWireDepth)));
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(NestedGroups(15, kMaxWireDepth + 1)),
            "request kbench.v1.GetJobRequest nests groups deeper than 100: the group of field 15 "
            "at byte 100 is 101 deep");
  // A group in spec starts one level down.
  EXPECT_EQ(RefusalOf<v1::SubmitJobRequest>(Spec(NestedGroups(15, kMaxWireDepth))),
            "request kbench.v1.SubmitJobRequest nests groups deeper than 100: the group of field "
            "15 at byte 102 is 101 deep");
}

TEST(WireDiagnosis, NamesAFieldThatEndsPastItsMessage) {
  // spec claims 40 bytes of 3; spec.shape claims 9 of spec's 3.
  EXPECT_EQ(RefusalOf<v1::SubmitJobRequest>(Tag(1, 2) + Varint(40) + VarintField(7, 1) + "x"),
            "request kbench.v1.SubmitJobRequest is truncated: field spec (1) ends past the "
            "message (byte 42 of 5)");
  EXPECT_EQ(RefusalOf<v1::SubmitJobRequest>(Spec(Tag(4, 2) + Varint(9) + "x")),
            "request kbench.v1.SubmitJobRequest is truncated: field spec.shape (4) ends past spec "
            "(byte 13 of 5)");
  EXPECT_EQ(RefusalOf<v1::SubmitJobRequest>(Spec(Tag(9, 1) + "1234")),
            "request kbench.v1.SubmitJobRequest is truncated: field spec.stopping (9) ends past "
            "spec (byte 11 of 7)");
}

TEST(WireDiagnosis, NamesAVarintThatRunsPastItsMessage) {
  EXPECT_EQ(RefusalOf<v1::ListJobsRequest>(Tag(4, 0) + "\x80"),
            "request kbench.v1.ListJobsRequest is truncated: the value of field page_size (4) at "
            "byte 1 runs past the message (byte 2)");
  EXPECT_EQ(RefusalOf<v1::ListJobsRequest>("\x80"),
            "request kbench.v1.ListJobsRequest is truncated: the tag at byte 0 runs past the "
            "message (byte 1)");
  EXPECT_EQ(RefusalOf<v1::ListHistoryRequest>(LengthDelimited(3, "\x01\x80")),
            "request kbench.v1.ListHistoryRequest is truncated: the packed value of field shape "
            "(3) at byte 3 runs past shape (byte 4)");
}

TEST(WireDiagnosis, NamesAGroupLeftOpen) {
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(Tag(5, kStartGroup) + VarintField(1, 1)),
            "request kbench.v1.GetJobRequest is truncated: the group of unknown field 5 has no "
            "end-group tag before the end of the message (byte 3)");
}

TEST(WireDiagnosis, NamesTagsNoEncoderWrites) {
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(Tag(1, 7) + "x"),
            "request kbench.v1.GetJobRequest: the tag at byte 0 has wire type 7, which protobuf "
            "does not define");
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(VarintField(0, 1)),
            "request kbench.v1.GetJobRequest: the tag at byte 0 has field number 0");
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(Tag(5, kEndGroup)),
            "request kbench.v1.GetJobRequest: the end-group tag of field 5 at byte 0 closes no "
            "group");
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(Tag(5, kStartGroup) + Tag(6, kEndGroup)),
            "request kbench.v1.GetJobRequest: the end-group tag of field 6 at byte 1 closes the "
            "group of field 5");
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(Varint(uint64_t{1} << 32) + "\x01"),
            "request kbench.v1.GetJobRequest: the tag at byte 0 is wider than 32 bits");
  EXPECT_EQ(RefusalOf<v1::GetJobRequest>(std::string(11, '\xff') + "\x01"),
            "request kbench.v1.GetJobRequest: the tag at byte 0 is a varint longer than 10 bytes");
}

TEST(WireDiagnosis, NamesAPackedFieldOfPartElements) {
  // VariantResult.sample_seconds: repeated double, 8 bytes each.
  EXPECT_EQ(RefusalOf<v1::VariantResult>(LengthDelimited(1400, std::string(12, '\0'))),
            "request kbench.v1.VariantResult: field sample_seconds (1400) is packed in 12 bytes, "
            "not a multiple of 8");
}

TEST(WireDiagnosis, NamesAStringThatIsNotUtf8InsideAMapEntry) {
  const std::string entry = LengthDelimited(1, "k\xff") + VarintField(2, 3);
  EXPECT_EQ(RefusalOf<v1::SubmitJobRequest>(Spec(LengthDelimited(11, entry))),
            "request kbench.v1.SubmitJobRequest: field spec.params[0].key (1) is not valid UTF-8 "
            "at byte 1");
}

TEST(WireDiagnosis, JudgesUtf8AsProtobufDoes) {
  // Valid: the largest code point of each length. Invalid: a lone continuation byte, overlong
  // forms, a surrogate, past U+10FFFF, a lead byte that no character starts with, cut short.
  for (const std::string valid : {"\x7f", "\xdf\xbf", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(BothAccept<v1::GetJobRequest>(LengthDelimited(1, "a" + valid)));
  }
  for (const std::string invalid : {"\x80", "\xc1\xbf", "\xe0\x9f\xbf", "\xed\xa0\x80",
                                    "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82"}) {
    EXPECT_THAT(RefusalOf<v1::GetJobRequest>(LengthDelimited(1, "a" + invalid)),
                HasSubstr("field job_id (1) is not valid UTF-8 at byte 1"));
  }
}

}  // namespace
}  // namespace kbench::api
