// Tests of kbctl's JSON output: valid JSON that protobuf reads back into the same message.
#include "client/format/json.h"

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "kbench/v1/service.pb.h"
#include "tests/client/fake_kbench_server.h"

namespace kbench::client {
namespace {

using ::testing::HasSubstr;

v1::Job FullJob() {
  v1::Job job;
  job.set_id("job-7");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  job.set_device("cuda:0");
  v1::JobSpec* spec = job.mutable_spec();
  spec->set_kind(v1::JOB_KIND_BENCHMARK);
  spec->set_kernel("softmax");
  spec->add_variants("naive");
  spec->add_variants("fused");
  spec->add_shape(4096);
  spec->add_shape(4096);
  spec->set_dtype(v1::DTYPE_BF16);
  spec->set_seed(18446744073709551615ull);
  (*spec->mutable_params())["layers"] = 4;
  job.mutable_create_time()->set_seconds(1'700'000'000);
  job.mutable_create_time()->set_nanos(123'000'000);
  *job.mutable_result()->add_variants() = testing::MakeVariantResult("naive", 2e-3);
  *job.mutable_result()->add_variants() = testing::MakeVariantResult("fused", 1e-3);
  job.mutable_result()->mutable_environment()->mutable_before()->add_throttle_reason_names("hw");
  v1::ArtifactInfo* a = job.add_artifacts();
  a->set_name("samples.csv");
  a->set_size_bytes(1234);
  job.set_error("quote \" and newline \n survive");
  return job;
}

TEST(ToJson, RoundTripsAFullJobThroughProtobufJson) {
  const v1::Job job = FullJob();
  absl::StatusOr<std::string> json = ToJson(job);
  ASSERT_TRUE(json.ok()) << json.status();
  v1::Job back;
  ASSERT_TRUE(FromJson(*json, &back).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(job, back)) << *json << "\nvs\n"
                                                                             << back.DebugString();
}

TEST(ToJson, UsesProtoFieldNamesEnumNamesAndPrintsZeroFields) {
  absl::StatusOr<std::string> json = ToJson(FullJob());
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, HasSubstr("\"median_seconds\""));
  EXPECT_THAT(*json, HasSubstr("\"JOB_STATE_SUCCEEDED\""));
  EXPECT_THAT(*json, HasSubstr("\"priority\": 0"));
  EXPECT_THAT(*json, HasSubstr("\"18446744073709551615\""));  // uint64 as a string, exact.
  EXPECT_EQ(json->back(), '\n');
}

TEST(ToJson, WrapsListsInAnObject) {
  v1::ListJobsResponse list;
  *list.add_jobs() = FullJob();
  list.set_next_page_token("offset:50");
  absl::StatusOr<std::string> json = ToJson(list);
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->front(), '{');
  google::protobuf::Struct parsed;  // Any JSON object parses into a Struct.
  ASSERT_TRUE(FromJson(*json, &parsed).ok());
  EXPECT_EQ(parsed.fields().at("jobs").list_value().values_size(), 1);
  EXPECT_EQ(parsed.fields().at("next_page_token").string_value(), "offset:50");
}

TEST(ToJsonValue, EmbedsMessagesInAStruct) {
  v1::ArtifactInfo info;
  info.set_name("trace.json");
  info.set_size_bytes(99);
  absl::StatusOr<google::protobuf::Value> v = ToJsonValue(info);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->struct_value().fields().at("name").string_value(), "trace.json");
  EXPECT_EQ(v->struct_value().fields().at("size_bytes").string_value(), "99");
}

TEST(FromJson, RejectsInvalidJsonNamingTheType) {
  v1::Job job;
  const absl::Status s = FromJson("{\"id\": ", &job);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("kbench.v1.Job"));
}

}  // namespace
}  // namespace kbench::client
