// What the misbehaving test executor does with a job, chosen by the job spec's seed.
#pragma once

#include <cstdint>

namespace kbench::testing {

enum class Misbehaviour : uint64_t {
  kHang = 9001,            // never answers, ignores cancel
  kExit = 9002,            // exits mid-job
  kGarbageFrame = 9003,    // a frame whose bytes are no message
  kOversizedFrame = 9004,  // a length prefix over the 64 MiB limit
  kTruncatedFrame = 9005,  // half a frame, then exits
};

}  // namespace kbench::testing
