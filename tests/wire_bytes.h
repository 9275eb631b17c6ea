// Protobuf wire-format bytes built by hand, for tests that send what no serializer writes:
// strings that are not UTF-8, fields cut short, groups nested past any limit, bad tags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kbench::testing::wire {

// Wire types (protobuf's encoding guide).
inline constexpr int kVarint = 0;
inline constexpr int kFixed64 = 1;
inline constexpr int kLengthDelimited = 2;
inline constexpr int kStartGroup = 3;
inline constexpr int kEndGroup = 4;
inline constexpr int kFixed32 = 5;

inline std::string Varint(uint64_t value) {
  std::string bytes;
  for (; value >= 0x80; value >>= 7) bytes += static_cast<char>((value & 0x7f) | 0x80);
  bytes += static_cast<char>(value);
  return bytes;
}

inline std::string Tag(uint64_t number, int wire_type) {
  return Varint((number << 3) | static_cast<uint64_t>(wire_type));
}

inline std::string VarintField(uint64_t number, uint64_t value) {
  return Tag(number, kVarint) + Varint(value);
}

inline std::string LengthDelimited(uint64_t number, std::string_view payload) {
  return Tag(number, kLengthDelimited) + Varint(payload.size()) + std::string(payload);
}

// `depth` groups of field `number`, each inside the one before.
inline std::string NestedGroups(uint64_t number, int depth) {
  std::string bytes;
  for (int i = 0; i < depth; ++i) bytes += Tag(number, kStartGroup);
  for (int i = 0; i < depth; ++i) bytes += Tag(number, kEndGroup);
  return bytes;
}

}  // namespace kbench::testing::wire
