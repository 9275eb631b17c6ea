// The interleaved sampling loop.
#include "server/executor/measure/sampler.h"

#include <chrono>
#include <cmath>

#include "absl/status/status.h"

namespace kbench::measure {

std::vector<double> VariantSamples::per_launch_seconds() const {
  std::vector<double> out;
  out.reserve(kept.size());
  for (const Sample& s : kept) out.push_back(s.per_launch());
  return out;
}

double SteadyNowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

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
      absl::StatusOr<Sample> sample = sample_fns[i]();
      if (!sample.ok()) return sample.status();
      VariantSamples& vs = results[i];
      if (sample->discard) {
        ++vs.discarded;
        if (hooks.on_discard) hooks.on_discard();
      } else {
        vs.kept.push_back(*sample);
        vs.measured_seconds += sample->seconds;
        rules[i].Add(sample->per_launch(), sample->seconds);
      }
      const double elapsed = now() - start;
      vs.wall_seconds = elapsed;
      const StopDecision decision = rules[i].Check(elapsed);
      const bool report = decision.stop || elapsed - last_progress >= hooks.progress_interval_seconds;
      if (report && hooks.progress) {
        const double noise = rules[i].noise();
        hooks.progress({names[i], rules[i].samples(), std::isfinite(noise) ? noise : 0, elapsed});
        last_progress = elapsed;
      }
      if (decision.stop) {
        vs.decision = decision;
        done[i] = true;
        --remaining;
      }
    }
  }
  return results;
}

}  // namespace kbench::measure
