// Fuzz target: submit validation (server/api/submit_validation.*). The bytes are a serialized
// JobSpec as a client could send it (protobuf parses any field with any value); validating it
// for a cpu and a GPU device must end in OK or one of the documented codes, and a spec it
// accepts must validate again unchanged (normalization is idempotent).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/util/message_differencer.h"
#include "kbench/v1/types.pb.h"
#include "server/api/submit_validation.h"

namespace {

bool Documented(absl::StatusCode code) {
  return code == absl::StatusCode::kOk || code == absl::StatusCode::kInvalidArgument ||
         code == absl::StatusCode::kFailedPrecondition ||
         code == absl::StatusCode::kResourceExhausted;
}

kbench::v1::DeviceInfo Device(bool gpu) {
  kbench::v1::DeviceInfo d;
  d.set_id(gpu ? "cuda:0" : "cpu");
  d.set_kind(gpu ? kbench::v1::DEVICE_KIND_CUDA : kbench::v1::DEVICE_KIND_CPU);
  d.set_memory_bytes(gpu ? int64_t{80} << 30 : int64_t{16} << 30);
  d.set_state(kbench::v1::DEVICE_STATE_READY);
  return d;
}

}  // namespace

// Strings that are not UTF-8 are expected input: protobuf's log line for each would drown the
// fuzzer's output and slow it tenfold.
[[maybe_unused]] const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  kbench::v1::JobSpec parsed;
  if (!parsed.ParseFromArray(data, static_cast<int>(size))) return 0;
  parsed.DiscardUnknownFields();  // as SubmitJob does
  kbench::api::SubmitLimits limits;
  limits.host_check_max_bytes = int64_t{8} << 30;  // not this machine's memory: reproducible
  for (bool gpu : {false, true}) {
    kbench::v1::JobSpec spec = parsed;
    const absl::Status status = kbench::api::ValidateAndNormalize(Device(gpu), limits, &spec);
    if (!Documented(status.code()) || (!status.ok() && status.message().empty())) std::abort();
    if (!status.ok()) continue;
    kbench::v1::JobSpec again = spec;
    if (!kbench::api::ValidateAndNormalize(Device(gpu), limits, &again).ok()) std::abort();
    // Equal as messages, not as bytes: a map's wire order follows its hash table, which a
    // copy may lay out differently (the fuzzer once stopped on params {layers, steps} so).
    if (!google::protobuf::util::MessageDifferencer::Equals(again, spec)) std::abort();
  }
  return 0;
}
