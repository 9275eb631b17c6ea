// Length-delimited protobuf over a file descriptor (the control plane <-> executor pipe):
// a 4-byte little-endian length, then the serialized message.
#pragma once

#include "absl/status/status.h"
#include "google/protobuf/message_lite.h"

namespace kbench {

// Largest message accepted; a longer length prefix means a corrupt stream.
inline constexpr uint32_t kMaxWireMessageBytes = 64u << 20;

// Writes the whole message or fails. Safe to call from one thread at a time per fd.
absl::Status WriteDelimited(int fd, const google::protobuf::MessageLite& message);

// Reads one message. End of stream before a length prefix is OUT_OF_RANGE ("closed");
// anything else malformed is DATA_LOSS.
absl::Status ReadDelimited(int fd, google::protobuf::MessageLite* message);

}  // namespace kbench
