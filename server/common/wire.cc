// Length-delimited protobuf framing over a file descriptor.
#include "server/common/wire.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace kbench {
namespace {

absl::Status WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(absl::StrCat("write to executor pipe: ", std::strerror(errno)));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Returns the bytes read; fewer than `size` only at end of stream.
absl::StatusOr<size_t> ReadAll(int fd, char* data, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, data + got, size - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(
          absl::StrCat("read from executor pipe: ", std::strerror(errno)));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

}  // namespace

absl::Status WriteDelimited(int fd, const google::protobuf::MessageLite& message) {
  std::string body;
  if (!message.SerializeToString(&body)) return absl::InternalError("serialize failed");
  if (body.size() > kMaxWireMessageBytes) return absl::InternalError("message too large");
  const uint32_t len = static_cast<uint32_t>(body.size());
  char header[4] = {static_cast<char>(len & 0xff), static_cast<char>((len >> 8) & 0xff),
                    static_cast<char>((len >> 16) & 0xff), static_cast<char>((len >> 24) & 0xff)};
  std::string frame(header, 4);
  frame += body;
  return WriteAll(fd, frame.data(), frame.size());
}

absl::Status ReadDelimited(int fd, google::protobuf::MessageLite* message) {
  unsigned char header[4];
  KBENCH_ASSIGN_OR_RETURN(size_t got, ReadAll(fd, reinterpret_cast<char*>(header), 4));
  if (got == 0) return absl::OutOfRangeError("closed");
  if (got < 4) return absl::DataLossError("truncated length prefix");
  const uint32_t len =
      header[0] | (header[1] << 8) | (header[2] << 16) | (static_cast<uint32_t>(header[3]) << 24);
  if (len > kMaxWireMessageBytes) {
    return absl::DataLossError(absl::StrCat("message length ", len, " exceeds the limit"));
  }
  std::string body(len, '\0');
  KBENCH_ASSIGN_OR_RETURN(got, ReadAll(fd, body.data(), len));
  if (got < len) return absl::DataLossError("truncated message");
  if (!message->ParseFromString(body)) return absl::DataLossError("unparseable message");
  return absl::OkStatus();
}

}  // namespace kbench
