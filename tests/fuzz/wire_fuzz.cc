// Fuzz target: the executor pipe's framing (server/common/wire.*). Any bytes an executor could
// write, a crashed one's half message or a hostile one's huge length prefix included, must
// come back as a message or a clean error (OUT_OF_RANGE at the end, DATA_LOSS otherwise),
// never a crash, a hang or an allocation of the prefix's size.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "google/protobuf/stubs/logging.h"
#include "kbench/internal/v1/executor.pb.h"
#include "server/common/wire.h"

// Strings that are not UTF-8 are expected input: protobuf's log line for each would drown the
// fuzzer's output and slow it tenfold.
[[maybe_unused]] const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A memfd reads like the pipe (short reads at its end) without a writer thread.
  const int fd = memfd_create("wire-fuzz", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  lseek(fd, 0, SEEK_SET);
  // Every message of the stream, as the control plane reads an executor's.
  for (int messages = 0; messages < 64; ++messages) {
    kbench::internal::v1::ExecutorMessage message;
    const absl::Status status = kbench::ReadDelimited(fd, &message);
    if (status.ok()) continue;
    if (status.code() != absl::StatusCode::kOutOfRange &&
        status.code() != absl::StatusCode::kDataLoss) {
      std::abort();  // an undocumented failure
    }
    break;
  }
  close(fd);
  return 0;
}
