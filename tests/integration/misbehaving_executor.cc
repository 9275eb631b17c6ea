// A stand-in for kbench-executor (passed to kbenchd with --executor-path) that speaks the pipe
// protocol and misbehaves on command: the job spec's seed picks what it does with the job, so
// that a real daemon's handling of each failure can be tested without a broken build. Every
// other seed gets a successful outcome at once.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "kbench/internal/v1/executor.pb.h"
#include "server/common/wire.h"
#include "tests/integration/misbehaviour.h"

namespace {

using kbench::internal::v1::ExecutorMessage;
using kbench::internal::v1::ExecutorRequest;
using kbench::testing::Misbehaviour;

void WriteRaw(int fd, const std::string& bytes) {
  if (write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) std::exit(9);
}

std::string LittleEndian(uint32_t n) {
  return std::string{static_cast<char>(n & 0xff), static_cast<char>(n >> 8 & 0xff),
                     static_cast<char>(n >> 16 & 0xff), static_cast<char>(n >> 24 & 0xff)};
}

void Succeed(int fd, const std::string& job_id) {
  ExecutorMessage outcome;
  outcome.mutable_outcome()->set_job_id(job_id);
  outcome.mutable_outcome()->set_code(0);
  outcome.mutable_outcome()->mutable_result()->add_variants()->set_variant("host_loop");
  if (!kbench::WriteDelimited(fd, outcome).ok()) std::exit(9);
}

void Run(int fd, const kbench::internal::v1::RunJob& job) {
  switch (static_cast<Misbehaviour>(job.spec().seed())) {
    case Misbehaviour::kHang:
      while (true) std::this_thread::sleep_for(std::chrono::hours(1));
    case Misbehaviour::kExit:
      std::_Exit(3);
    case Misbehaviour::kGarbageFrame:
      // A plausible length, then bytes that are no ExecutorMessage (field 0 is invalid).
      WriteRaw(fd, LittleEndian(4) + std::string("\x00\xff\xff\xff", 4));
      break;
    case Misbehaviour::kOversizedFrame:
      WriteRaw(fd, LittleEndian(0xfffffff0u));
      break;
    case Misbehaviour::kTruncatedFrame:
      WriteRaw(fd, LittleEndian(100) + "only a part");
      std::_Exit(0);
    default:
      Succeed(fd, job.job_id());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int fd = -1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--fd") == 0) fd = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--discover") == 0) return 1;  // no CUDA devices here
  }
  if (fd < 0) return 2;
  ExecutorMessage ready;
  kbench::v1::DeviceInfo* info = ready.mutable_ready();
  info->set_id("cpu");
  info->set_kind(kbench::v1::DEVICE_KIND_CPU);
  info->set_name("misbehaving test executor");
  info->set_memory_bytes(int64_t{1} << 30);
  info->set_state(kbench::v1::DEVICE_STATE_READY);
  if (!kbench::WriteDelimited(fd, ready).ok()) return 3;
  while (true) {
    ExecutorRequest request;
    if (!kbench::ReadDelimited(fd, &request).ok() || request.has_shutdown()) return 0;
    if (request.has_run()) Run(fd, request.run());
  }
}
