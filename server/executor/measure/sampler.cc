// The interleaved sampling loop.
#include "server/executor/measure/sampler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"

namespace kbench::measure {

std::vector<double> VariantSamples::per_launch_seconds() const {
  std::vector<double> out;
  out.reserve(kept.size());
  for (const Sample& s : kept) out.push_back(s.per_launch());
  return out;
}

double SteadyNowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double DiscardBackoffSeconds(int consecutive) {
  constexpr double kFirst = 0.01, kMax = 0.5;
  const int doublings = std::clamp(consecutive - 1, 0, 16);
  return std::min(kMax, kFirst * static_cast<double>(1 << doublings));
}

namespace {

std::string ClockSeen(const Sample& last) {
  if (last.clock_floor_mhz <= 0) return "no clock floor was reported";
  return absl::StrFormat("SM clock %.0f MHz seen against a floor of %.0f MHz", last.sm_clock_mhz,
                         last.clock_floor_mhz);
}

absl::Status TooManyDiscards(const std::string& name, int consecutive, const Sample& last) {
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s: %d samples in a row discarded because the GPU ran below its clock floor (%s); the "
      "device is throttled or its clocks are held low: check nvidia-smi -q -d PERFORMANCE",
      name, consecutive, ClockSeen(last)));
}

absl::Status NothingKept(const VariantSamples& vs, const Sample& last) {
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s: no sample kept (%d discarded, %s; %s): a run with no sample has no result", vs.name,
      vs.discarded, vs.discarded > 0 ? ClockSeen(last) : "none discarded", vs.decision.reason));
}

}  // namespace

absl::StatusOr<std::vector<VariantSamples>> SampleInterleaved(
    const std::vector<std::string>& names, const std::vector<SampleFn>& sample_fns,
    const StoppingCriteria& criteria, const SamplerHooks& hooks) {
  if (names.size() != sample_fns.size() || names.empty()) {
    return absl::InternalError("SampleInterleaved: names and sample functions differ in count");
  }
  const auto now = hooks.now ? hooks.now : SteadyNowSeconds;
  std::vector<VariantSamples> results(names.size());
  std::vector<StoppingRule> rules(names.size(), StoppingRule(criteria));
  std::vector<bool> done(names.size(), false);
  std::vector<int> consecutive_discards(names.size(), 0);
  std::vector<Sample> last(names.size());
  const auto sleep = hooks.sleep ? hooks.sleep : [](double seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  };
  const double start = now();
  double last_progress = -1e300;
  size_t remaining = names.size();
  for (size_t i = 0; i < names.size(); ++i) results[i].name = names[i];

  while (remaining > 0) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (done[i]) continue;
      if (hooks.cancelled != nullptr && hooks.cancelled->load()) {
        return absl::CancelledError("job cancelled while sampling");
      }
      KBENCH_ASSIGN_OR_RETURN(Sample sample, sample_fns[i]());
      VariantSamples& vs = results[i];
      last[i] = sample;
      if (sample.discard) {
        ++vs.discarded;
        if (++consecutive_discards[i] >= hooks.max_consecutive_discards) {
          return TooManyDiscards(names[i], consecutive_discards[i], sample);
        }
        sleep(DiscardBackoffSeconds(consecutive_discards[i]));
      } else {
        consecutive_discards[i] = 0;
        vs.kept.push_back(sample);
        vs.measured_seconds += sample.seconds;
        rules[i].Add(sample.per_launch(), sample.seconds);
      }
      const double elapsed = now() - start;
      vs.wall_seconds = elapsed;
      const StopDecision decision = rules[i].Check(elapsed);
      const bool report =
          decision.stop || elapsed - last_progress >= hooks.progress_interval_seconds;
      if (report && hooks.progress) {
        const double noise = rules[i].noise();
        hooks.progress({names[i], rules[i].samples(), std::isfinite(noise) ? noise : 0, elapsed});
        last_progress = elapsed;
      }
      if (decision.stop) {
        vs.decision = decision;
        if (vs.kept.empty()) return NothingKept(vs, last[i]);
        done[i] = true;
        --remaining;
      }
    }
  }
  return results;
}

}  // namespace kbench::measure
