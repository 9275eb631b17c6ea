// A succeeded job's result-index rows.
#include "server/scheduler/result_indexing.h"

#include <algorithm>

#include "common/gang_model.h"
#include "server/common/ranked_result.h"
#include "server/common/result_key.h"

namespace kbench::scheduler {
namespace {

// A user variant's module sha256 (its UserModuleRecord): two kernels submitted under the same
// name are different keys. Catalogue variants have none.
std::string ModuleSha256Of(const v1::VariantResult& variant) {
  return variant.has_user_module() ? variant.user_module().module_sha256() : "";
}

// A median below the physical floor (the executor's verdict, integrity.proto).
bool ImpossibleOf(const v1::VariantResult& variant) {
  return variant.floor().judged() && variant.floor().impossible();
}

// Counted as correct only when checked and passed, including the check of a timed launch when
// one was made.
bool CorrectOf(const v1::VariantResult& variant) {
  const bool checked = variant.correctness().checked() && variant.correctness().passed();
  const bool timed = !variant.timed_correctness().checked() || variant.timed_correctness().passed();
  return checked && timed;
}

// Whether a result stays in history, leaderboards and verdict baselines: its stamp found nothing
// on the device (another process, MIG/MPS, clocks, throttling, heat, ECC/Xid). A shared host CPU
// alone keeps it (the stamp still shows it): a GPU's time comes from events on the device, and
// on a busy host's cpu device every result shares the CPU alike, which the key's between-job
// noise already carries; leaving them out would leave such a host no history at all.
bool CountsAsClean(const v1::CleanStamp& stamp) {
  if (!stamp.stamped() || stamp.clean()) return true;
  for (int reason : stamp.reasons()) {
    if (reason != v1::STAMP_REASON_CPU_SHARED) return false;
  }
  return true;
}

}  // namespace

std::vector<store::IndexedResult> IndexedResultsOf(const store::JobRecord& job,
                                                   const v1::JobSpec& spec,
                                                   const v1::JobResult& result,
                                                   int64_t finish_time_ns) {
  std::vector<store::IndexedResult> rows;
  if (job.kind != JobKind::kBenchmark) return rows;
  const v1::Environment& env = result.environment();
  for (const v1::VariantResult& v : result.variants()) {
    if (v.stats().samples() < 1) continue;
    store::IndexedResult& r = rows.emplace_back();
    r.job_id = job.id;
    r.variant = v.variant();
    r.module_sha256 = ModuleSha256Of(v);
    r.kernel = spec.kernel();
    r.shape = result_key::ShapeText(spec.shape());
    r.dtype = result_key::DTypeText(spec.dtype());
    r.params = result_key::ParamsText(spec.params());
    r.mode =
        result_key::ModeText(v.mode() != v1::MEASURE_MODE_UNSPECIFIED ? v.mode() : spec.mode());
    r.device = job.device;
    r.device_model = HistoryDeviceModel(env.device_name(), spec.devices_size());
    r.driver_version = env.driver_version();
    r.kbench_version = env.kbench_version();
    r.owner = spec.owner();
    r.finish_time_ns = finish_time_ns;
    r.median_seconds = v.stats().median_seconds();
    r.median_ci_low_seconds = v.stats().median_ci_low_seconds();
    r.median_ci_high_seconds = v.stats().median_ci_high_seconds();
    r.samples = v.stats().samples();
    r.correct = CorrectOf(v);
    r.impossible = ImpossibleOf(v);
    r.contended = env.contention().contended();
    r.placements = std::max(spec.placements(), 1);
    r.ranked = spec.ranked() && RankedResultCounts(v);
    r.confirmation = r.ranked && !spec.confirms_job().empty();
    r.custom_stopping = spec.stopping().ByteSizeLong() > 0;
    r.clean = CountsAsClean(v.clean_stamp());
    r.joules_per_launch = v.energy().measured() ? v.energy().joules_per_launch() : 0;
  }
  return rows;
}

}  // namespace kbench::scheduler
