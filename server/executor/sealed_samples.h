// Sealed timed samples (issue 23): every timed sample computes on inputs it has never seen into
// outputs holding a pattern it cannot predict, and every sample's outputs are read back at the
// same secret positions. Which samples are then compared with the float64 reference is chosen
// from the job's secret only after sampling, so a checked sample cannot differ from any other
// in preparation, gaps or anything else a kernel can sense. This file holds the device-free
// logic: seeds, positions, the choice, and the judgement of the checked samples' times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace kbench::executor {

// What one sealed sample starts from: its inputs generated from `input_seed` (buffer set s of a
// rotation from SealedSetSeed(input_seed, s)) and its outputs filled from `pattern_seed` with
// values in the inputs' range, neither a fixed poison nor the previous answer.
struct SampleSeal {
  uint64_t input_seed = 0;
  uint64_t pattern_seed = 0;
};

// The seal of call `call` (0-based, discarded samples included) of sample stream `stream`
// (a variant at a placement) in a job whose secret is `secret`. Deterministic given the three.
SampleSeal SealFor(uint64_t secret, uint64_t stream, uint64_t call);

// The input seed of buffer set `set` of a rotation (graph mode's sets each hold other values).
uint64_t SealedSetSeed(uint64_t input_seed, uint64_t set);

// The output pattern's value at element `index` of output `output`: what an element that no
// launch wrote still holds (the host names such elements "never written").
float SealedPatternAt(uint64_t pattern_seed, uint32_t output, uint64_t index);

// The positions of an output of `elements` elements that every sample reads back: all of them
// up to `max_positions`, else `max_positions` distinct positions drawn from the secret, sorted.
std::vector<int64_t> SealedPositions(uint64_t secret, uint64_t stream, uint32_t output,
                                     int64_t elements, int64_t max_positions);

// Positions read back per output: enough that a kernel writing any fixed or random fraction
// f < 1 of its output escapes with probability f^4096.
inline constexpr int64_t kSealedPositions = 4096;

// How many of `kept` samples are compared with their reference: at least 2% and at least 3
// (all of them when fewer are kept), at most kMaxCheckedSamples. The cap bounds the job's
// reference work; it costs no safety: to move a median a kernel must cheat on more than half
// of the samples, and 64 checks miss that with probability 2^-64.
int64_t CheckedSampleCount(int64_t kept);
inline constexpr int64_t kMaxCheckedSamples = 64;

// What a kept sealed sample left for its check (its outputs at the sealed positions).
struct RetainedSample {
  int64_t index = 0;  // among the stream's kept samples, in the order taken
  SampleSeal seal;
  std::vector<std::vector<double>> outputs;
  int64_t unwritten = 0;
};

// Keeps a uniform random subset of a stream's kept samples (Algorithm R, from the secret) of at
// most kMaxCheckedSamples, so a long run holds a bounded number of read-back outputs; once
// sampling ends, Checked() draws the samples to compare from it. Since every sample was read
// back alike, neither the reservoir's nor the final choice can be seen by a kernel.
class SealedReservoir {
 public:
  SealedReservoir(uint64_t secret, uint64_t stream);
  // The next kept sample (index = the number offered before it).
  void Offer(RetainedSample sample);
  int64_t offered() const { return offered_; }
  // CheckedSampleCount(offered()) samples, uniformly chosen among all offered, by index.
  std::vector<RetainedSample> Checked() const;

 private:
  uint64_t secret_, stream_;
  uint64_t state_;
  int64_t offered_ = 0;
  std::vector<RetainedSample> kept_;
};

// The checked samples' times against the others'. Since the choice comes after sampling, the
// checked samples are a uniform random subset and an honest kernel's can be slower only by
// chance; the judgement is therefore loose (every checked sample above the unchecked p99 and
// their median 5% above the unchecked median: at most 0.01^3 by chance for three checks),
// a guard against a harness that lets a checked launch be told apart.
struct CheckedTiming {
  double checked_median = 0;
  double unchecked_median = 0;
  double unchecked_p99 = 0;
  bool judged = false;  // enough unchecked samples to judge (at least 20)
  bool slower = false;
};
CheckedTiming JudgeCheckedTiming(const std::vector<double>& per_launch,
                                 const std::vector<int64_t>& checked);

// FAILED_PRECONDITION when `t.slower`: "the checked launches took 1.31x the others: ...".
absl::Status CheckedTimingStatus(const CheckedTiming& t, const std::string& where);

}  // namespace kbench::executor
