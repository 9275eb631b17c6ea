// Serialized sizes by field (field_sizes.h), as protobuf's encoding guide counts them.
#include "server/api/field_sizes.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/str_cat.h"

namespace kbench::api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

size_t TagBytes(int number) {
  return CodedOutputStream::VarintSize32(static_cast<uint32_t>(number) << 3);
}

size_t LengthDelimitedBytes(size_t payload) {
  return CodedOutputStream::VarintSize64(payload) + payload;
}

// A varint scalar as the wire carries it: int32 and enums sign-extended to 64 bits, sint32 and
// sint64 zig-zagged. `i` is the element of a repeated field.
uint64_t WireVarint(const Reflection& r, const Message& m, const FieldDescriptor* f, int i) {
  const bool rep = f->is_repeated();
  switch (f->type()) {
    case FieldDescriptor::TYPE_INT32:
      return static_cast<uint64_t>(int64_t{rep ? r.GetRepeatedInt32(m, f, i) : r.GetInt32(m, f)});
    case FieldDescriptor::TYPE_ENUM:
      return static_cast<uint64_t>(
          int64_t{rep ? r.GetRepeatedEnumValue(m, f, i) : r.GetEnumValue(m, f)});
    case FieldDescriptor::TYPE_SINT32: {
      const int32_t v = rep ? r.GetRepeatedInt32(m, f, i) : r.GetInt32(m, f);
      return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
    }
    case FieldDescriptor::TYPE_UINT32:
      return rep ? r.GetRepeatedUInt32(m, f, i) : r.GetUInt32(m, f);
    case FieldDescriptor::TYPE_INT64:
      return static_cast<uint64_t>(rep ? r.GetRepeatedInt64(m, f, i) : r.GetInt64(m, f));
    case FieldDescriptor::TYPE_SINT64: {
      const int64_t v = rep ? r.GetRepeatedInt64(m, f, i) : r.GetInt64(m, f);
      return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    }
    case FieldDescriptor::TYPE_UINT64:
      return rep ? r.GetRepeatedUInt64(m, f, i) : r.GetUInt64(m, f);
    default:  // bool
      return 1;
  }
}

// One element of a field, without its tag.
size_t ElementBytes(const Reflection& r, const Message& m, const FieldDescriptor* f, int i) {
  const bool rep = f->is_repeated();
  switch (f->type()) {
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES: {
      std::string scratch;
      return LengthDelimitedBytes(rep ? r.GetRepeatedStringReference(m, f, i, &scratch).size()
                                      : r.GetStringReference(m, f, &scratch).size());
    }
    case FieldDescriptor::TYPE_MESSAGE:
      return LengthDelimitedBytes(
          (rep ? r.GetRepeatedMessage(m, f, i) : r.GetMessage(m, f)).ByteSizeLong());
    case FieldDescriptor::TYPE_GROUP:  // its end tag
      return (rep ? r.GetRepeatedMessage(m, f, i) : r.GetMessage(m, f)).ByteSizeLong() +
             TagBytes(f->number());
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return 8;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return 4;
    default:
      return CodedOutputStream::VarintSize64(WireVarint(r, m, f, i));
  }
}

size_t KnownFieldBytes(const Message& m, const FieldDescriptor* f) {
  const Reflection& r = *m.GetReflection();
  const int count = f->is_repeated() ? r.FieldSize(m, f) : 1;
  size_t payload = 0;
  for (int i = 0; i < count; ++i) payload += ElementBytes(r, m, f, i);
  if (f->is_packed()) return TagBytes(f->number()) + LengthDelimitedBytes(payload);
  return count * TagBytes(f->number()) + payload;
}

size_t UnknownFieldBytes(const UnknownField& u);

size_t UnknownFieldsBytes(const UnknownFieldSet& set) {
  size_t bytes = 0;
  for (int i = 0; i < set.field_count(); ++i) bytes += UnknownFieldBytes(set.field(i));
  return bytes;
}

size_t UnknownFieldBytes(const UnknownField& u) {
  const size_t tag = TagBytes(u.number());
  switch (u.type()) {
    case UnknownField::TYPE_VARINT:
      return tag + CodedOutputStream::VarintSize64(u.varint());
    case UnknownField::TYPE_FIXED32:
      return tag + 4;
    case UnknownField::TYPE_FIXED64:
      return tag + 8;
    case UnknownField::TYPE_LENGTH_DELIMITED:
      return tag + LengthDelimitedBytes(u.length_delimited().size());
    default:  // a group, between its start and end tags
      return 2 * tag + UnknownFieldsBytes(u.group());
  }
}

// Skips the value that follows `tag`; false where it cannot (a malformed value, or a group,
// which no kbench.v1 request declares).
bool SkipValue(CodedInputStream* in, uint32_t tag) {
  uint64_t ignored = 0;
  uint32_t length = 0;
  switch (tag & 7) {
    case 0:
      return in->ReadVarint64(&ignored);
    case 1:
      return in->Skip(8);
    case 2:
      return in->ReadVarint32(&length) && in->Skip(static_cast<int>(length));
    case 5:
      return in->Skip(4);
    default:
      return false;
  }
}

}  // namespace

std::vector<FieldSize> FieldSizes(const Message& message) {
  const Reflection& r = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r.ListFields(message, &fields);
  std::vector<FieldSize> sizes;
  for (const FieldDescriptor* f : fields) {
    sizes.push_back({f->number(), f, KnownFieldBytes(message, f)});
  }
  std::map<int, size_t> unknown;
  const UnknownFieldSet& set = r.GetUnknownFields(message);
  for (int i = 0; i < set.field_count(); ++i) {
    unknown[set.field(i).number()] += UnknownFieldBytes(set.field(i));
  }
  for (const auto& [number, bytes] : unknown) sizes.push_back({number, nullptr, bytes});
  return sizes;
}

std::vector<FieldSize> FieldSizesOnTheWire(google::protobuf::io::ZeroCopyInputStream* wire,
                                           const Descriptor& type, int max_fields) {
  CodedInputStream in(wire);
  std::map<int, size_t> bytes;
  for (int fields = 0; fields < max_fields; ++fields) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0 || !SkipValue(&in, tag)) break;
    bytes[static_cast<int>(tag >> 3)] += static_cast<size_t>(in.CurrentPosition() - start);
  }
  std::vector<FieldSize> sizes;
  for (const auto& [number, size] : bytes) {
    sizes.push_back({number, type.FindFieldByNumber(number), size});
  }
  return sizes;
}

std::string LargestField(const std::vector<FieldSize>& sizes, absl::string_view prefix) {
  const auto largest =
      std::max_element(sizes.begin(), sizes.end(),
                       [](const FieldSize& a, const FieldSize& b) { return a.bytes < b.bytes; });
  if (largest == sizes.end()) return "";
  const std::string name = largest->field != nullptr
                               ? absl::StrCat(prefix, largest->field->name())
                               : absl::StrCat("unknown field ", prefix, largest->number);
  return absl::StrCat("; the largest field is ", name, " (", largest->bytes, " bytes)");
}

}  // namespace kbench::api
