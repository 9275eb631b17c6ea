// Which fields make a message large, so that a size refusal names the largest ("spec: 16416
// bytes serialized; at most 16384 are accepted; the largest field is spec.confirms_job (16389
// bytes)") rather than only the whole.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <google/protobuf/message.h>

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace kbench::api {

struct FieldSize {
  int number;
  const google::protobuf::FieldDescriptor* field;  // null for a field its type does not declare
  size_t bytes;  // serialized, tags included; a repeated field's elements together
};

// Each field `message` holds, unknown ones included (one entry per number), by reflection.
std::vector<FieldSize> FieldSizes(const google::protobuf::Message& message);

// Each top-level field of a serialized `type` read from `wire`, skipping over the values
// without copying them, as far as they are well-formed and for at most `max_fields` fields (a
// bound on the work for a request that is refused anyway).
std::vector<FieldSize> FieldSizesOnTheWire(google::protobuf::io::ZeroCopyInputStream* wire,
                                           const google::protobuf::Descriptor& type,
                                           int max_fields);

// "; the largest field is spec.confirms_job (16389 bytes)" or "...is unknown field spec.999 (...)",
// of `sizes` (what FieldSizes returned, perhaps adjusted), whose names start with `prefix`
// ("spec."; "" for a request's own fields); "" when `sizes` is empty.
std::string LargestField(const std::vector<FieldSize>& sizes, absl::string_view prefix);

}  // namespace kbench::api
