// The diagnosis of a request protobuf refused to parse (wire_diagnosis.h). It follows the wire
// format as protobuf's parser does (google/protobuf/wire_format_lite.h and parse_context.h,
// protobuf 3.21): what the parser would keep as an unknown field is only skipped.
#include "server/api/wire_diagnosis.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench::api {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

// Wire types (protobuf's encoding guide); 6 and 7 are undefined.
enum WireType : int {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

constexpr size_t kMaxVarintBytes = 10;

// The length of the well-formed UTF-8 character at text[i], or 0. Well-formed as RFC 3629 and
// table 3-7 of the Unicode standard say, and as protobuf checks proto3 strings: no overlong
// forms, no surrogates, nothing past U+10FFFF.
size_t Utf8CharLength(absl::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t lead = at(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80;  // the second byte's range
  uint8_t high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size() || at(1) < low || at(1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (at(k) < 0x80 || at(k) > 0xbf) return 0;
  }
  return length;
}

struct Field;

// A message or group being walked.
struct Scope {
  const Descriptor* type;  // null inside an unknown group: none of its fields is known
  const Field* of;         // the field whose value it is; null for the request
  size_t end;              // the offset just past its last byte
  int depth;               // 0 for the request
  bool group = false;      // a group ends at an end-group tag of its field's number

  // How its fields' names start: "" for the request, "spec".
  std::string Path() const;
  // How a field that ends past it names it: "the message", "spec"; a group's is its message's.
  std::string Container() const;
};

// A field met in a scope. Names are spelled only for a message: a walk meets millions of fields
// in a large request, and all of them but one are fine.
struct Field {
  const Scope* scope;
  const FieldDescriptor* descriptor;  // null when the scope's type has no such field
  uint64_t number;
  int index;  // its occurrences before this one in the scope

  // "spec.variants[1]"; "spec.99" for an unknown field.
  std::string Path() const {
    const std::string scope_path = scope->Path();
    const absl::string_view dot = scope_path.empty() ? "" : ".";
    if (descriptor == nullptr) return absl::StrCat(scope_path, dot, number);
    std::string path = absl::StrCat(scope_path, dot, descriptor->name());
    // A string or message is one element per occurrence; a scalar's may be packed in one.
    const bool one_per_occurrence = descriptor->cpp_type() == FieldDescriptor::CPPTYPE_STRING ||
                                    descriptor->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
    if (descriptor->is_repeated() && one_per_occurrence) absl::StrAppend(&path, "[", index, "]");
    return path;
  }
  // "field spec.variants[1] (3)"; "unknown field spec.99".
  std::string Label() const {
    if (descriptor == nullptr) return absl::StrCat("unknown field ", Path());
    return absl::StrCat("field ", Path(), " (", number, ")");
  }
};

std::string Scope::Path() const { return of == nullptr ? "" : of->Path(); }

std::string Scope::Container() const {
  if (group) return of->scope->Container();
  return of == nullptr ? "the message" : of->Path();
}

Field FieldOf(const Scope& scope, uint64_t number, int index) {
  const FieldDescriptor* d =
      scope.type == nullptr ? nullptr : scope.type->FindFieldByNumber(static_cast<int>(number));
  return {&scope, d, number, index};
}

class WireWalk {
 public:
  WireWalk(absl::string_view bytes, const Descriptor& type) : bytes_(bytes), type_(type) {}

  absl::Status Run() {
    size_t pos = 0;
    return Fields(Scope{&type_, nullptr, bytes_.size(), 0}, &pos);
  }

 private:
  absl::Status Fields(const Scope& scope, size_t* pos);
  absl::Status CheckTag(uint64_t tag, size_t at) const;
  absl::Status EndGroup(const Scope& scope, uint64_t number, size_t at) const;
  absl::Status Value(const Scope& scope, const Field& field, int wire_type, size_t at, size_t* pos);
  absl::Status Group(const Scope& scope, const Field& field, size_t at, size_t* pos);
  absl::Status LengthDelimited(const Scope& scope, const Field& field, size_t begin, size_t end);
  absl::Status SubMessage(const Scope& scope, const Field& field, size_t begin, size_t end);
  absl::Status Utf8(const Field& field, size_t begin, size_t end) const;
  absl::Status Packed(const Field& field, size_t begin, size_t end) const;
  // `what` spells what the varint is, for a message.
  template <class What>
  absl::Status Varint(const Scope& scope, const What& what, size_t* pos, uint64_t* value) const;
  absl::Status Skip(const Scope& scope, const Field& field, uint64_t bytes, size_t* pos) const;

  absl::Status Malformed(absl::string_view detail) const {
    return absl::InvalidArgumentError(absl::StrCat("request ", type_.full_name(), ": ", detail));
  }
  absl::Status Truncated(absl::string_view detail) const {
    return absl::InvalidArgumentError(
        absl::StrCat("request ", type_.full_name(), " is truncated: ", detail));
  }
  absl::Status TooDeep(absl::string_view what, absl::string_view detail) const {
    return absl::InvalidArgumentError(absl::StrCat("request ", type_.full_name(), " nests ", what,
                                                   " deeper than ", kMaxWireDepth, ": ", detail));
  }

  absl::string_view bytes_;
  const Descriptor& type_;
};

absl::Status WireWalk::Fields(const Scope& scope, size_t* pos) {
  std::map<uint64_t, int> seen;  // occurrences of each field so far, to index repeated ones
  while (*pos < scope.end) {
    const size_t at = *pos;
    uint64_t tag = 0;
    KBENCH_RETURN_IF_ERROR(Varint(
        scope, [at] { return absl::StrCat("the tag at byte ", at); }, pos, &tag));
    KBENCH_RETURN_IF_ERROR(CheckTag(tag, at));
    const uint64_t number = tag >> 3;
    const int wire_type = static_cast<int>(tag & 7);
    if (wire_type == kEndGroup) return EndGroup(scope, number, at);
    KBENCH_RETURN_IF_ERROR(
        Value(scope, FieldOf(scope, number, seen[number]++), wire_type, at, pos));
  }
  if (!scope.group) return absl::OkStatus();
  return Truncated(absl::StrCat("the group of ", scope.of->Label(), " has no end-group tag before ",
                                "the end of ", scope.Container(), " (byte ", scope.end, ")"));
}

absl::Status WireWalk::CheckTag(uint64_t tag, size_t at) const {
  if (tag > std::numeric_limits<uint32_t>::max()) {
    return Malformed(absl::StrCat("the tag at byte ", at, " is wider than 32 bits"));
  }
  if ((tag >> 3) == 0) {
    return Malformed(absl::StrCat("the tag at byte ", at, " has field number 0"));
  }
  if ((tag & 7) > kFixed32) {
    return Malformed(absl::StrCat("the tag at byte ", at, " has wire type ", tag & 7,
                                  ", which protobuf does not define"));
  }
  return absl::OkStatus();
}

absl::Status WireWalk::EndGroup(const Scope& scope, uint64_t number, size_t at) const {
  if (scope.group && scope.of->number == number) return absl::OkStatus();
  const std::string tag = absl::StrCat("the end-group tag of field ", number, " at byte ", at);
  if (!scope.group) return Malformed(absl::StrCat(tag, " closes no group"));
  return Malformed(absl::StrCat(tag, " closes the group of field ", scope.of->number));
}

absl::Status WireWalk::Value(const Scope& scope, const Field& field, int wire_type, size_t at,
                             size_t* pos) {
  switch (wire_type) {
    case kVarint: {
      uint64_t ignored = 0;
      const auto what = [&field, at = *pos] {
        return absl::StrCat("the value of ", field.Label(), " at byte ", at);
      };
      return Varint(scope, what, pos, &ignored);
    }
    case kFixed64:
      return Skip(scope, field, 8, pos);
    case kFixed32:
      return Skip(scope, field, 4, pos);
    case kStartGroup:
      return Group(scope, field, at, pos);
    default: {
      uint64_t length = 0;
      const auto what = [&field, at = *pos] {
        return absl::StrCat("the length of ", field.Label(), " at byte ", at);
      };
      KBENCH_RETURN_IF_ERROR(Varint(scope, what, pos, &length));
      const size_t begin = *pos;
      KBENCH_RETURN_IF_ERROR(Skip(scope, field, length, pos));
      return LengthDelimited(scope, field, begin, *pos);
    }
  }
}

absl::Status WireWalk::Group(const Scope& scope, const Field& field, size_t at, size_t* pos) {
  const int depth = scope.depth + 1;
  if (depth > kMaxWireDepth) {
    return TooDeep("groups", absl::StrCat("the group of field ", field.number, " at byte ", at,
                                          " is ", depth, " deep"));
  }
  // Only a proto2 group field has a type; proto3 has none, so a group is an unknown field.
  const FieldDescriptor* d = field.descriptor;
  const Descriptor* type =
      d != nullptr && d->type() == FieldDescriptor::TYPE_GROUP ? d->message_type() : nullptr;
  return Fields(Scope{type, &field, scope.end, depth, /*group=*/true}, pos);
}

absl::Status WireWalk::LengthDelimited(const Scope& scope, const Field& field, size_t begin,
                                       size_t end) {
  const FieldDescriptor* d = field.descriptor;
  if (d == nullptr) return absl::OkStatus();  // protobuf keeps an unknown field's bytes unread
  switch (d->type()) {
    case FieldDescriptor::TYPE_MESSAGE:
      return SubMessage(scope, field, begin, end);
    case FieldDescriptor::TYPE_STRING:
      return Utf8(field, begin, end);
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_GROUP:
      return absl::OkStatus();
    default:
      // A repeated scalar, packed; a singular one sent this way is kept as an unknown field.
      return d->is_repeated() ? Packed(field, begin, end) : absl::OkStatus();
  }
}

absl::Status WireWalk::SubMessage(const Scope& scope, const Field& field, size_t begin,
                                  size_t end) {
  const int depth = scope.depth + 1;
  if (depth > kMaxWireDepth) {
    return TooDeep("messages",
                   absl::StrCat(field.Label(), " at byte ", begin, " is ", depth, " deep"));
  }
  size_t pos = begin;
  return Fields(Scope{field.descriptor->message_type(), &field, end, depth}, &pos);
}

absl::Status WireWalk::Utf8(const Field& field, size_t begin, size_t end) const {
  // Protobuf checks the strings of proto3 files only.
  if (field.descriptor->file()->syntax() != FileDescriptor::SYNTAX_PROTO3) return absl::OkStatus();
  const absl::string_view text = bytes_.substr(begin, end - begin);
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8CharLength(text, i);
    if (length == 0)
      return Malformed(absl::StrCat(field.Label(), " is not valid UTF-8 at byte ", i));
    i += length;
  }
  return absl::OkStatus();
}

absl::Status WireWalk::Packed(const Field& field, size_t begin, size_t end) const {
  size_t width = 0;  // of a fixed-width element; 0 for varints
  switch (field.descriptor->type()) {
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_FLOAT:
      width = 4;
      break;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_DOUBLE:
      width = 8;
      break;
    default:
      break;
  }
  if (width != 0) {
    if ((end - begin) % width == 0) return absl::OkStatus();
    return Malformed(absl::StrCat(field.Label(), " is packed in ", end - begin,
                                  " bytes, not a multiple of ", width));
  }
  const Scope packed{nullptr, &field, end, 0};
  for (size_t pos = begin; pos < end;) {
    const auto what = [&field, at = pos] {
      return absl::StrCat("the packed value of ", field.Label(), " at byte ", at);
    };
    uint64_t ignored = 0;
    KBENCH_RETURN_IF_ERROR(Varint(packed, what, &pos, &ignored));
  }
  return absl::OkStatus();
}

template <class What>
absl::Status WireWalk::Varint(const Scope& scope, const What& what, size_t* pos,
                              uint64_t* value) const {
  uint64_t result = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (*pos + i >= scope.end) {
      return Truncated(
          absl::StrCat(what(), " runs past ", scope.Container(), " (byte ", scope.end, ")"));
    }
    const auto byte = static_cast<uint8_t>(bytes_[*pos + i]);
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *pos += i + 1;
      *value = result;
      return absl::OkStatus();
    }
  }
  return Malformed(absl::StrCat(what(), " is a varint longer than ", kMaxVarintBytes, " bytes"));
}

absl::Status WireWalk::Skip(const Scope& scope, const Field& field, uint64_t bytes,
                            size_t* pos) const {
  if (bytes <= scope.end - *pos) {
    *pos += bytes;
    return absl::OkStatus();
  }
  // Saturated: a length varint may claim up to 2^64 - 1 bytes.
  const uint64_t ends = bytes > std::numeric_limits<uint64_t>::max() - *pos
                            ? std::numeric_limits<uint64_t>::max()
                            : *pos + bytes;
  return Truncated(absl::StrCat(field.Label(), " ends past ", scope.Container(), " (byte ", ends,
                                " of ", scope.end, ")"));
}

}  // namespace

absl::Status DiagnoseWireFormat(absl::string_view bytes, const Descriptor& type) {
  return WireWalk(bytes, type).Run();
}

}  // namespace kbench::api
