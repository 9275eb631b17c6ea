// Serialized sizes by field (server/api/field_sizes.h): exact, so that they add up to
// protobuf's own ByteSizeLong, by reflection and on the wire alike.
#include "server/api/field_sizes.h"

#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kbench/v1/service.pb.h"

namespace kbench::api {
namespace {

// Every kind of field: negative int32 and enum (10 bytes each on the wire), packed negatives,
// a map, a sub-message, doubles, strings, and unknown fields of every wire type.
v1::JobSpec EveryKindOfField() {
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.add_variants("host_rowwise");
  spec.add_variants("online");
  spec.add_shape(-3);
  spec.add_shape(int64_t{1} << 40);
  spec.set_priority(-1);
  spec.set_dtype(static_cast<v1::DType>(-2));
  spec.set_seed(~uint64_t{0});
  (*spec.mutable_params())["layers"] = 4;
  spec.mutable_stopping()->set_max_noise(0.01);
  spec.mutable_stopping()->set_min_samples(12);
  spec.set_sanitize(true);
  google::protobuf::UnknownFieldSet* unknown = spec.GetReflection()->MutableUnknownFields(&spec);
  unknown->AddVarint(900, 300);
  unknown->AddFixed32(901, 7);
  unknown->AddFixed64(902, 7);
  unknown->AddLengthDelimited(903, "abc");
  unknown->AddLengthDelimited(903, "de");
  unknown->AddGroup(904)->AddVarint(1, 1);
  return spec;
}

size_t Total(const std::vector<FieldSize>& sizes) {
  size_t total = 0;
  for (const FieldSize& size : sizes) total += size.bytes;
  return total;
}

std::map<int, size_t> ByNumber(const std::vector<FieldSize>& sizes) {
  std::map<int, size_t> bytes;
  for (const FieldSize& size : sizes) bytes[size.number] += size.bytes;
  return bytes;
}

TEST(FieldSizes, AddUpToTheSerializedSize) {
  const v1::JobSpec spec = EveryKindOfField();
  EXPECT_EQ(Total(FieldSizes(spec)), spec.ByteSizeLong());
}

TEST(FieldSizes, CountsUnknownFieldsOncePerNumber) {
  const std::map<int, size_t> bytes = ByNumber(FieldSizes(EveryKindOfField()));
  EXPECT_EQ(bytes.at(903), (2u + 1 + 3) + (2 + 1 + 2));  // two tags, lengths and payloads
  EXPECT_EQ(bytes.at(904), 2u + 2 + 2);                  // start tag, its field, end tag
}

TEST(FieldSizes, OnTheWireMatchReflectionWithoutParsing) {
  const v1::JobSpec spec = EveryKindOfField();
  const std::string bytes = spec.SerializeAsString();
  std::map<int, size_t> expected = ByNumber(FieldSizes(spec));
  expected.erase(904);  // the wire walk stops at a group: no request declares one
  google::protobuf::io::ArrayInputStream wire(bytes.data(), static_cast<int>(bytes.size()));
  std::map<int, size_t> read =
      ByNumber(FieldSizesOnTheWire(&wire, *v1::JobSpec::descriptor(), 100));
  EXPECT_EQ(read, expected);
}

TEST(FieldSizes, OnTheWireStopAtAMalformedValue) {
  const std::string bytes = std::string("\x12\x02ok") + "\x1a\x09" + "cut";  // variants: 9 of 3
  google::protobuf::io::ArrayInputStream wire(bytes.data(), static_cast<int>(bytes.size()));
  const std::vector<FieldSize> sizes = FieldSizesOnTheWire(&wire, *v1::JobSpec::descriptor(), 100);
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(sizes[0].field->name(), "kernel");
  EXPECT_EQ(sizes[0].bytes, 4u);
}

TEST(FieldSizes, OnTheWireReadAtMostTheFieldsAskedFor) {
  const std::string bytes = std::string("\x12\x02ok") + "\x18\x01" + "\x18\x02";
  google::protobuf::io::ArrayInputStream wire(bytes.data(), static_cast<int>(bytes.size()));
  const std::vector<FieldSize> sizes = FieldSizesOnTheWire(&wire, *v1::JobSpec::descriptor(), 2);
  EXPECT_EQ(Total(sizes), 6u);  // kernel and the first shape
}

TEST(LargestField, NamesTheLargestKnownOrUnknownFieldWithItsSize) {
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.set_confirms_job(std::string(1000, 'j'));
  EXPECT_EQ(LargestField(FieldSizes(spec), "spec."),
            "; the largest field is spec.confirms_job (1004 bytes)");
  spec.GetReflection()->MutableUnknownFields(&spec)->AddLengthDelimited(999,
                                                                        std::string(2000, 'u'));
  EXPECT_EQ(LargestField(FieldSizes(spec), "spec."),
            "; the largest field is unknown field spec.999 (2004 bytes)");
  EXPECT_EQ(LargestField({}, "spec."), "");
}

}  // namespace
}  // namespace kbench::api
