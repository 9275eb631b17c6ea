// Seeds, positions and the choice of checked samples for sealed sampling (sealed_samples.h).
#include "server/executor/sealed_samples.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include "absl/strings/str_format.h"
#include "kernels/random.h"
#include "server/executor/measure/statistics.h"

namespace kbench::executor {
namespace {

// Domain tags: each use of the secret draws from its own stream.
enum class Draw : uint64_t { kInputs = 1, kPattern, kPositions, kChoice, kReservoir };

uint64_t Mix(uint64_t secret, Draw what, uint64_t a, uint64_t b = 0) {
  using kernels::SplitMix64;
  return SplitMix64(secret ^ SplitMix64(static_cast<uint64_t>(what) ^
                                        SplitMix64(a ^ SplitMix64(b + 0x632BE59BD9B4E019ull))));
}

constexpr int64_t kMinChecked = 3;
constexpr double kCheckedFraction = 0.02;
constexpr int64_t kMinUncheckedToJudge = 20;
constexpr double kSlowerRatio = 1.05;

double MedianOf(std::vector<double> v) { return measure::ComputeStatistics(std::move(v)).median; }

}  // namespace

SampleSeal SealFor(uint64_t secret, uint64_t stream, uint64_t call) {
  SampleSeal seal;
  seal.input_seed = Mix(secret, Draw::kInputs, stream, call) | 1;  // never 0: 0 means "draw one"
  seal.pattern_seed = Mix(secret, Draw::kPattern, stream, call);
  return seal;
}

uint64_t SealedSetSeed(uint64_t input_seed, uint64_t set) {
  return kernels::DeriveSeed(input_seed, set);
}

float SealedPatternAt(uint64_t pattern_seed, uint32_t output, uint64_t index) {
  return kernels::OutputPatternAt(pattern_seed, output, index);
}

std::vector<int64_t> SealedPositions(uint64_t secret, uint64_t stream, uint32_t output,
                                     int64_t elements, int64_t max_positions) {
  std::vector<int64_t> positions;
  if (elements <= max_positions) {
    for (int64_t i = 0; i < elements; ++i) positions.push_back(i);
    return positions;
  }
  std::mt19937_64 rng(Mix(secret, Draw::kPositions, stream, output));
  std::uniform_int_distribution<int64_t> pick(0, elements - 1);
  std::unordered_set<int64_t> seen;
  while (static_cast<int64_t>(positions.size()) < max_positions) {
    const int64_t p = pick(rng);
    if (seen.insert(p).second) positions.push_back(p);
  }
  std::sort(positions.begin(), positions.end());
  return positions;
}

int64_t CheckedSampleCount(int64_t kept) {
  if (kept <= 0) return 0;
  const int64_t wanted = std::max<int64_t>(
      kMinChecked, static_cast<int64_t>(std::ceil(kCheckedFraction * static_cast<double>(kept))));
  return std::min({kept, wanted, kMaxCheckedSamples});
}

SealedReservoir::SealedReservoir(uint64_t secret, uint64_t stream)
    : secret_(secret), stream_(stream), state_(Mix(secret, Draw::kReservoir, stream)) {}

void SealedReservoir::Offer(RetainedSample sample) {
  const int64_t n = offered_++;
  if (n < kMaxCheckedSamples) {
    kept_.push_back(std::move(sample));
    return;
  }
  // Algorithm R: the n-th (0-based) replaces a random slot with probability capacity / (n + 1).
  state_ = kernels::SplitMix64(state_);
  const int64_t slot = static_cast<int64_t>(state_ % static_cast<uint64_t>(n + 1));
  if (slot < kMaxCheckedSamples) kept_[slot] = std::move(sample);
}

std::vector<RetainedSample> SealedReservoir::Checked() const {
  const int64_t count = CheckedSampleCount(offered_);
  // A partial Fisher-Yates shuffle of the reservoir: a uniform subset of a uniform subset.
  std::vector<size_t> order(kept_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(Mix(secret_, Draw::kChoice, stream_, static_cast<uint64_t>(offered_)));
  for (int64_t i = 0; i < count; ++i) {
    std::uniform_int_distribution<size_t> pick(static_cast<size_t>(i), order.size() - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<RetainedSample> chosen;
  for (int64_t i = 0; i < count; ++i) chosen.push_back(kept_[order[i]]);
  std::sort(chosen.begin(), chosen.end(),
            [](const RetainedSample& a, const RetainedSample& b) { return a.index < b.index; });
  return chosen;
}

CheckedTiming JudgeCheckedTiming(const std::vector<double>& per_launch,
                                 const std::vector<int64_t>& checked) {
  CheckedTiming t;
  std::vector<bool> is_checked(per_launch.size(), false);
  std::vector<double> checked_times, unchecked;
  for (int64_t i : checked) {
    if (i < 0 || i >= static_cast<int64_t>(per_launch.size())) continue;
    is_checked[i] = true;
    checked_times.push_back(per_launch[i]);
  }
  for (size_t i = 0; i < per_launch.size(); ++i) {
    if (!is_checked[i]) unchecked.push_back(per_launch[i]);
  }
  if (checked_times.empty() || static_cast<int64_t>(unchecked.size()) < kMinUncheckedToJudge) {
    return t;
  }
  const measure::SampleStatistics u = measure::ComputeStatistics(unchecked);
  t.unchecked_median = u.median;
  t.unchecked_p99 = u.p99;
  t.checked_median = MedianOf(checked_times);
  t.judged = true;
  const double fastest_checked = *std::min_element(checked_times.begin(), checked_times.end());
  t.slower = fastest_checked > u.p99 && t.checked_median > kSlowerRatio * u.median;
  return t;
}

absl::Status CheckedTimingStatus(const CheckedTiming& t, const std::string& where) {
  if (!t.slower) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s: the checked launches took %.2fx the others (median %.4g s against %.4g s; every one "
      "slower than the others' p99 %.4g s): the timed launches did less work than the checked "
      "ones",
      where, t.checked_median / t.unchecked_median, t.checked_median, t.unchecked_median,
      t.unchecked_p99));
}

}  // namespace kbench::executor
