// Views of jobs and their results for kbctl's table output.
#include "client/format/job_view.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/args.h"
#include "client/format/conditions_view.h"
#include "client/format/profile_view.h"
#include "client/format/progress.h"
#include "client/format/table.h"
#include "client/format/units.h"
#include "client/format/usage_view.h"
#include "client/format/user_kernel_view.h"
#include "common/status_code_name.h"
#include "common/stopping_defaults.h"

namespace kbench::client {
namespace {

bool HasTime(const google::protobuf::Timestamp& t) { return t.seconds() != 0 || t.nanos() != 0; }

absl::Time ToTime(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

std::string FormatTimestamp(const google::protobuf::Timestamp& t) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E3S %Z", ToTime(t), absl::LocalTimeZone());
}

double SecondsBetween(const google::protobuf::Timestamp& a, const google::protobuf::Timestamp& b) {
  return absl::ToDoubleSeconds(ToTime(b) - ToTime(a));
}

std::string Shape(const v1::JobSpec& spec) {
  return ShapeString({spec.shape().begin(), spec.shape().end()});
}

std::string StoppingSummary(const v1::StoppingCriteria& s) {
  const auto pick = [](double v, double d) { return v > 0 ? v : d; };
  return absl::StrCat(
      "noise < ", FormatPercent(pick(s.max_noise(), kDefaultMaxNoise)),
      ", >= ", s.min_samples() > 0 ? s.min_samples() : kDefaultMinSamples,
      " samples, >= ", FormatSeconds(pick(s.min_time_seconds(), kDefaultMinTimeSeconds)),
      " measured, timeout ", FormatSeconds(pick(s.timeout_seconds(), kDefaultTimeoutSeconds)));
}

std::string ClockSummary(const v1::ClockReading& c) {
  std::vector<std::string> parts;
  if (c.sm_clock_mhz() > 0) parts.push_back(absl::StrCat("SM ", c.sm_clock_mhz(), " MHz"));
  if (c.memory_clock_mhz() > 0) {
    parts.push_back(absl::StrCat("memory ", c.memory_clock_mhz(), " MHz"));
  }
  if (c.temperature_c() > 0) parts.push_back(absl::StrCat(c.temperature_c(), " C"));
  if (c.power_watts() > 0) parts.push_back(absl::StrFormat("%.1f W", c.power_watts()));
  if (!parts.empty()) {
    parts.push_back(absl::StrCat(
        "throttle: ",
        c.throttle_reason_names().empty()
            ? (c.throttle_reasons() == 0 ? std::string("none")
                                         : absl::StrFormat("0x%x", c.throttle_reasons()))
            : absl::StrJoin(c.throttle_reason_names(), ",")));
  }
  return absl::StrJoin(parts, ", ");
}

// The bandwidth or FLOP rate with its fraction of the device's ceiling.
std::string RateWithFraction(const std::string& rate, double fraction, const char* of) {
  if (rate == "-") return rate;
  if (fraction <= 0) return rate;
  return absl::StrCat(rate, " (", FormatPercent(fraction), " of ", of, ")");
}

std::string JobResultCell(const v1::Job& job) {
  switch (job.state()) {
    case v1::JOB_STATE_SUCCEEDED: {
      const auto& variants = job.result().variants();
      if (variants.empty()) {
        return job.result().has_profile()
                   ? absl::StrCat(job.result().profile().kernels_size(), " kernels profiled")
                   : "-";
      }
      std::string cell = FormatSeconds(variants[0].stats().median_seconds());
      if (variants.size() > 1) {
        absl::StrAppend(&cell, " (+", variants.size() - 1,
                        variants.size() == 2 ? " variant)" : " variants)");
      }
      return cell;
    }
    case v1::JOB_STATE_FAILED:
    case v1::JOB_STATE_CANCELLED: {
      const absl::StatusCode code = JobStatusCode(job);
      return code == absl::StatusCode::kOk ? StateName(job.state())
                                           : absl::StatusCodeToString(code);
    }
    case v1::JOB_STATE_RUNNING:
      return ProgressPhaseWord(job.progress()).empty()
                 ? "-"
                 : absl::StrCat(ProgressPhaseWord(job.progress()), " ", job.progress().samples());
    default:
      return "-";
  }
}

// The variants a job names; a compile job names none but its kernel ("softmax_kernel from
// my.cu").
std::vector<std::string> VariantNames(const v1::JobSpec& spec) {
  std::vector<std::string> names(spec.variants().begin(), spec.variants().end());
  if (!names.empty()) return names;
  for (const v1::UserKernel& k : spec.user_kernels()) {
    std::string name = k.entry().empty() ? k.name() : k.entry();
    if (!k.file_name().empty()) absl::StrAppend(&name, " from ", k.file_name());
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

std::string CorrectnessSummary(const v1::Correctness& c) {
  if (!c.checked()) return "unchecked";
  std::string s =
      absl::StrCat(c.passed() ? "pass" : "FAIL", " (", FormatScientific(c.relative_l2_error()),
                   c.passed() ? " <= " : " vs ", FormatScientific(c.tolerance()));
  if (c.nan_count() > 0) absl::StrAppend(&s, ", ", c.nan_count(), " NaN");
  if (c.unwritten_count() > 0) absl::StrAppend(&s, ", ", c.unwritten_count(), " unwritten");
  return s + ")";
}

absl::StatusCode JobStatusCode(const v1::Job& job) {
  if (job.error_status() != v1::STATUS_CODE_OK) {
    return static_cast<absl::StatusCode>(job.error_status());
  }
  // An older kbenchd sets only the name.
  return StatusCodeFromName(job.error_code(), job.state() == v1::JOB_STATE_FAILED);
}

std::string RenderJob(const v1::Job& job) {
  const v1::JobSpec& spec = job.spec();
  FieldList f;
  f.Add("Job", job.id());
  f.Add("State", StateName(job.state()));
  if (job.state() == v1::JOB_STATE_QUEUED && job.has_queue_place()) {
    f.Add("Queue", DescribeQueuePlace(job.queue_place()));
  }
  f.Add("Kind", KindName(spec.kind()));
  f.Add("Kernel", absl::StrCat(spec.kernel(), " [", absl::StrJoin(VariantNames(spec), ", "), "]"));
  f.Add("Shape",
        absl::StrCat(Shape(spec), " ",
                     spec.dtype() == v1::DTYPE_UNSPECIFIED ? "f32" : DTypeName(spec.dtype())));
  std::string device = job.device().empty() ? spec.device() : job.device();
  if (!spec.device().empty() && spec.device() != device) {
    absl::StrAppend(&device, " (asked for ", spec.device(), ")");
  }
  f.Add("Device", device.empty() ? "-" : device);
  if (spec.devices_size() > 1) {
    f.Add("Devices",
          absl::StrCat(absl::StrJoin(spec.devices(), ", "), " (held together, rank order)"));
  }
  if (!spec.params().empty()) {
    std::vector<std::string> params;
    std::map<std::string, int64_t> sorted(spec.params().begin(), spec.params().end());
    params.reserve(sorted.size());
    for (const auto& [k, v] : sorted) params.push_back(absl::StrCat(k, "=", v));
    f.Add("Params", absl::StrJoin(params, " "));
  }
  if (spec.kind() == v1::JOB_KIND_PROFILE) {
    f.Add("Profile",
          absl::StrCat(spec.profile().iterations() > 0 ? spec.profile().iterations() : 10,
                       " iterations per variant", spec.profile().ncu() ? ", Nsight Compute" : ""));
  } else if (spec.kind() != v1::JOB_KIND_COMPILE) {  // a compile job runs nothing
    f.Add("Mode",
          spec.mode() == v1::MEASURE_MODE_UNSPECIFIED ? "device default" : ModeName(spec.mode()));
    f.Add("Stopping", StoppingSummary(spec.stopping()));
  }
  if (spec.seed() != 0) f.Add("Seed", absl::StrCat(spec.seed()));
  f.Add("Priority", absl::StrCat(spec.priority()));
  if (!spec.owner().empty()) f.Add("Owner", spec.owner());
  if (!job.idempotency_key().empty()) f.Add("Idempotency key", job.idempotency_key());
  if (HasTime(job.create_time())) f.Add("Created", FormatTimestamp(job.create_time()));
  if (HasTime(job.start_time())) {
    f.Add("Started",
          absl::StrCat(FormatTimestamp(job.start_time()), " (queued ",
                       FormatElapsed(SecondsBetween(job.create_time(), job.start_time())), ")"));
  }
  if (HasTime(job.finish_time())) {
    const auto& from = HasTime(job.start_time()) ? job.start_time() : job.create_time();
    f.Add("Finished", absl::StrCat(FormatTimestamp(job.finish_time()), " (ran ",
                                   FormatElapsed(SecondsBetween(from, job.finish_time())), ")"));
  }
  if (job.attempts() > 1) f.Add("Attempts", absl::StrCat(job.attempts()));
  if (const absl::StatusCode code = JobStatusCode(job);
      !job.error().empty() || code != absl::StatusCode::kOk) {
    f.Add("Error", code == absl::StatusCode::kOk
                       ? job.error()
                       : absl::StrCat(absl::StatusCodeToString(code), ": ", job.error()));
  }
  if (job.state() == v1::JOB_STATE_RUNNING && !ProgressPhaseWord(job.progress()).empty()) {
    f.Add("Progress", absl::StrCat(ProgressPhaseWord(job.progress()), " ", job.progress().variant(),
                                   ", ", job.progress().samples(), " samples, noise ",
                                   FormatPercent(job.progress().noise())));
  }
  if (!job.artifacts().empty()) {
    std::vector<std::string> names;
    for (const v1::ArtifactInfo& a : job.artifacts()) {
      names.push_back(absl::StrCat(a.name(), " (", FormatBytes(a.size_bytes()), ")"));
    }
    f.Add("Artifacts", absl::StrJoin(names, ", "));
  }
  std::string out = f.Render();
  const std::string result = RenderResult(job);
  if (!result.empty()) absl::StrAppend(&out, "\n", result);
  return out;
}

namespace {

// Median, spread, noise and why sampling stopped.
void AddTimingFields(const v1::VariantResult& v, const v1::JobSpec& spec, FieldList* f) {
  const v1::Statistics& s = v.stats();
  std::string median = FormatSeconds(s.median_seconds());
  if (s.median_ci_high_seconds() > 0) {
    absl::StrAppend(
        &median, "  (95% CI ", FormatSeconds(s.median_ci_low_seconds()), " .. ",
        FormatSeconds(s.median_ci_high_seconds()),
        v.median_precision() > 0 ? absl::StrCat(", +-", FormatPercent(v.median_precision())) : "",
        ")");
  }
  f->Add("Median", median);
  f->Add("Spread",
         absl::StrCat("min ", FormatSeconds(s.min_seconds()), "  mean ",
                      FormatSeconds(s.mean_seconds()), "  max ", FormatSeconds(s.max_seconds()),
                      "  stddev ", FormatSeconds(s.stddev_seconds())));
  f->Add("Percentiles",
         absl::StrCat("p10 ", FormatSeconds(s.p10_seconds()), "  p90 ",
                      FormatSeconds(s.p90_seconds()), "  p99 ", FormatSeconds(s.p99_seconds())));
  const double target =
      spec.stopping().max_noise() > 0 ? spec.stopping().max_noise() : kDefaultMaxNoise;
  // Hot and graph statistics describe batch means, not single launches (issue 15, item 6).
  const bool batch_means =
      s.unit() == v1::HARNESS_STATISTIC_UNIT_BATCH_MEAN ||
      (s.unit() == v1::HARNESS_STATISTIC_UNIT_UNSPECIFIED && s.launches_per_sample() > 1);
  f->Add("Noise", absl::StrCat(FormatPercent(s.relative_stddev()), " relative stddev (target ",
                               FormatPercent(target), ") over ", s.samples(),
                               batch_means ? absl::StrCat(" batch means of ",
                                                          s.launches_per_sample(), " launches")
                                           : " samples of one launch"));
  f->Add("Stopped", absl::StrCat(v.stop_reason().empty() ? "-" : v.stop_reason(),
                                 v.converged() ? "" : " (did not converge)"));
}

// Achieved bandwidth and compute, against the device's copy bandwidth and peak.
// Issue 30: a collective's bandwidths with nccl-tests' conventions, and every rank's time.
void AddCollectiveFields(const v1::Collective& c, FieldList* f) {
  std::string bus = FormatBandwidth(c.bus_bytes_per_second());
  if (c.peak_bus_bytes_per_second() > 0) {
    absl::StrAppend(
        &bus, " (", FormatPercent(c.bus_bytes_per_second() / c.peak_bus_bytes_per_second()),
        " of the ", FormatBandwidth(c.peak_bus_bytes_per_second()), " measured between the ranks)");
  }
  f->Add("Bus bandwidth",
         absl::StrCat(bus, "; algorithm ", FormatBandwidth(c.algorithm_bytes_per_second()),
                      ", bus factor ", absl::StrFormat("%.4g", c.bus_factor())));
  f->Add("Message", absl::StrCat(FormatBytes(c.message_bytes()), " per rank, ", c.world_size(),
                                 " ranks (", absl::StrJoin(c.devices(), ", "), ")"));
  std::vector<std::string> ranks;
  for (int r = 0; r < c.rank_median_seconds_size(); ++r) {
    ranks.push_back(absl::StrCat(r, ": ", FormatSeconds(c.rank_median_seconds(r))));
  }
  f->Add("Ranks", absl::StrCat("median per rank ", absl::StrJoin(ranks, ", "), "; slowest rank ",
                               c.slowest_rank(), "; ", c.ranks_checked(), " of ", c.world_size(),
                               " checked"));
}

void AddThroughputFields(const v1::VariantResult& v, FieldList* f) {
  if (v.has_collective()) {
    AddCollectiveFields(v.collective(), f);
    return;
  }
  if (v.bytes() > 0) {
    f->Add("Bandwidth",
           absl::StrCat(RateWithFraction(FormatBandwidth(v.bytes_per_second()),
                                         v.fraction_of_copy_bandwidth(), "copy bandwidth"),
                        ", ", FormatBytes(v.bytes()), " per launch"));
  }
  if (v.flops() > 0) {
    f->Add("Compute", absl::StrCat(RateWithFraction(FormatFlops(v.flops_per_second()),
                                                    v.fraction_of_peak_flops(), "peak"),
                                   ", ", absl::StrFormat("%.4g", static_cast<double>(v.flops())),
                                   " FLOP per launch"));
  }
}

// The reference check, the timed check and the drift check.
void AddCheckFields(const v1::VariantResult& v, FieldList* f) {
  const v1::Correctness& c = v.correctness();
  std::string check = CorrectnessSummary(c);
  if (c.elements_checked() > 0)
    absl::StrAppend(&check, " over ", c.elements_checked(), " elements");
  if (!c.detail().empty()) absl::StrAppend(&check, "; ", c.detail());
  f->Add("Correctness", check);
  if (v.timed_correctness().checked()) {
    f->Add("Timed check", absl::StrCat(CorrectnessSummary(v.timed_correctness()),
                                       " on the outputs of a timed sample"));
  }
  // Issue 23: the timed samples themselves, each on its own inputs.
  if (const v1::SealedChecks& sealed = v.sealed_checks(); sealed.samples_checked() > 0) {
    std::string line = absl::StrCat(
        "passed: ", sealed.samples_checked(), " of ", sealed.samples(),
        " timed samples (chosen after sampling) matched the reference of their own inputs at ",
        sealed.positions(), " positions; inputs ",
        sealed.inputs_unchanged() ? "unchanged" : "CHANGED");
    if (sealed.unchecked_median_seconds() > 0) {
      absl::StrAppend(&line, "; checked median ", FormatSeconds(sealed.checked_median_seconds()),
                      " vs ", FormatSeconds(sealed.unchecked_median_seconds()), " unchecked");
    }
    f->Add("Sealed", line);  // no wider than the labels around it: scripts align on them
  }
  // The physical floor the median was held to (issue 10, item 5).
  if (v.floor().judged()) f->Add("Floor", v.floor().detail());
  if (v.drift_checked()) {
    f->Add("Drift",
           absl::StrCat(v.drifted() ? "DRIFTED" : "none", ": median ",
                        FormatSeconds(v.first_half_median_seconds()), " in the first half, ",
                        FormatSeconds(v.second_half_median_seconds()), " in the second",
                        v.drifted() ? " (95% intervals disjoint)" : ""));
  }
}

// What the measurement cost and what may have distorted it.
void AddCostFields(const v1::VariantResult& v, FieldList* f) {
  const v1::Statistics& s = v.stats();
  if (v.host_enqueue_seconds() > 0) {
    const double batch_seconds = s.median_seconds() * static_cast<double>(s.launches_per_sample());
    f->Add("Host enqueue",
           absl::StrCat(
               FormatSeconds(v.host_enqueue_seconds()), " per batch",
               batch_seconds > 0
                   ? absl::StrCat(" (", FormatPercent(v.host_enqueue_seconds() / batch_seconds),
                                  " of its device time)")
                   : "",
               v.host_bound() ? "; HOST-BOUND: the launch rate was timed, use --mode graph" : ""));
  }
  if (v.rotation_bytes() > 0) {
    f->Add("Rotation",
           absl::StrCat(FormatBytes(v.rotation_bytes()), " of buffer sets, ",
                        absl::StrFormat("%.2f", v.rotation_over_l2()), " x L2",
                        v.rotation_fits_l2() ? "; UNDER 2 x L2: data partly stays in L2" : ""));
  }
  if (v.placements_size() > 1) {
    std::vector<std::string> each;
    for (const v1::PlacementResult& p : v.placements()) {
      each.push_back(absl::StrCat(FormatSeconds(p.median_seconds()), " (gap ",
                                  FormatBytes(p.tensor_gap_bytes()), ")"));
    }
    f->Add(
        "Placements",
        absl::StrCat(v.placements_size(), ", medians spread ", FormatPercent(v.placement_spread()),
                     "; the median above pools them: ", absl::StrJoin(each, ", ")));
  }
  // Issue 29: what a launch cost in energy, and whether the window was clean.
  if (v.has_energy()) f->Add("Energy", EnergySummary(v.energy()));
  if (v.clean_stamp().stamped()) f->Add("Conditions", StampSummary(v.clean_stamp()));
  f->Add("Time spent", absl::StrCat(FormatSeconds(v.measured_seconds()), " measured, ",
                                    FormatSeconds(v.wall_seconds()), " wall"));
  if (v.discarded_samples() > 0 || v.throttled()) {
    f->Add("Throttling",
           absl::StrCat(v.discarded_samples(), " samples discarded (SM clock below the floor)",
                        v.throttled() ? "; the device reported throttling" : ""));
  }
}

}  // namespace

std::string RenderVariant(const v1::VariantResult& v, const v1::JobSpec& spec) {
  FieldList f;
  AddTimingFields(v, spec, &f);
  AddThroughputFields(v, &f);
  AddCheckFields(v, &f);
  AddCostFields(v, &f);
  return f.Render(2);
}

namespace {

// Columns of the compare table that only some results fill (a CPU run counts no FLOPs; a
// result from before issue 15's harness has no timed check or flags).
struct CompareColumns {
  bool bytes = false, flops = false, timed_check = false, flags = false;
  // Issue 29: energy per launch and the clean stamp.
  bool energy = false, stamp = false;
};

// The harness's warnings about one variant's timing (types.proto, VariantResult 103-113):
// each says why its median deserves a second look.
std::string TimingFlags(const v1::VariantResult& v) {
  std::vector<std::string> flags;
  if (v.drift_checked() && v.drifted()) {
    flags.push_back(absl::StrCat("drift ", FormatSeconds(v.first_half_median_seconds()), " -> ",
                                 FormatSeconds(v.second_half_median_seconds())));
  }
  if (v.host_bound()) flags.push_back("host-bound (try graph mode)");
  if (v.placements_size() > 1) {
    flags.push_back(absl::StrCat("placement spread ", FormatPercent(v.placement_spread()), " over ",
                                 v.placements_size()));
  }
  if (v.rotation_fits_l2()) {
    flags.push_back(absl::StrFormat("buffers fit L2 (%.1fx)", v.rotation_over_l2()));
  }
  return flags.empty() ? "-" : absl::StrJoin(flags, "; ");
}

CompareColumns ChooseCompareColumns(const v1::JobResult& result) {
  CompareColumns c;
  for (const v1::VariantResult& v : result.variants()) {
    c.bytes |= v.bytes() > 0;
    c.flops |= v.flops() > 0;
    c.timed_check |= v.timed_correctness().checked();
    c.flags |= TimingFlags(v) != "-";
    c.energy |= v.has_energy();
    c.stamp |= v.clean_stamp().stamped();
  }
  return c;
}

Table CompareTableHeader(const CompareColumns& c) {
  std::vector<std::string> headers = {"VARIANT", "MEDIAN", "NOISE", "SAMPLES"};
  if (c.bytes) headers.insert(headers.end(), {"BANDWIDTH", "%COPY"});
  if (c.flops) headers.insert(headers.end(), {"COMPUTE", "%PEAK"});
  if (c.energy) headers.push_back("J/LAUNCH");
  headers.push_back("SPEEDUP");
  const size_t last_number = headers.size() - 1;
  headers.push_back("CORRECTNESS");
  if (c.timed_check) headers.push_back("TIMED CHECK");
  headers.push_back("STOPPED");
  if (c.flags) headers.push_back("FLAGS");
  if (c.stamp) headers.push_back("CONDITIONS");
  Table table(headers);
  for (size_t i = 1; i <= last_number; ++i) table.AlignRight(i);
  return table;
}

std::vector<std::string> CompareRow(const v1::VariantResult& v, const CompareColumns& c,
                                    double first_median) {
  std::vector<std::string> row = {v.variant(), FormatSeconds(v.stats().median_seconds()),
                                  FormatPercent(v.stats().relative_stddev()),
                                  absl::StrCat(v.stats().samples())};
  if (c.bytes) {
    row.push_back(FormatBandwidth(v.bytes_per_second()));
    row.push_back(FormatPercent(v.fraction_of_copy_bandwidth()));
  }
  if (c.flops) {
    row.push_back(FormatFlops(v.flops_per_second()));
    row.push_back(FormatPercent(v.fraction_of_peak_flops()));
  }
  if (c.energy) row.push_back(EnergyCell(v.energy()));
  double speedup = v.speedup_vs_first();
  if (speedup <= 0 && v.stats().median_seconds() > 0) {
    speedup = first_median / v.stats().median_seconds();
  }
  row.push_back(FormatFactor(speedup));
  row.push_back(CorrectnessSummary(v.correctness()));
  if (c.timed_check) {
    row.push_back(v.timed_correctness().checked() ? CorrectnessSummary(v.timed_correctness())
                                                  : "-");
  }
  row.push_back(v.stop_reason().empty() ? "-" : v.stop_reason());
  if (c.flags) row.push_back(TimingFlags(v));
  if (c.stamp) row.push_back(StampCell(v.clean_stamp()));
  return row;
}

}  // namespace

std::string RenderCompareTable(const v1::JobResult& result) {
  const CompareColumns columns = ChooseCompareColumns(result);
  Table table = CompareTableHeader(columns);
  const double first_median =
      result.variants().empty() ? 0 : result.variants(0).stats().median_seconds();
  for (const v1::VariantResult& v : result.variants()) {
    table.AddRow(CompareRow(v, columns, first_median));
  }
  return table.Render();
}

namespace {

// Issue 29: the device's settings a reproduction must match, where NVML said them.
std::string DeviceConfiguration(const v1::Environment& env) {
  std::vector<std::string> parts;
  const std::pair<const char*, const std::string*> named[] = {
      {"compute mode ", &env.compute_mode()},
      {"ECC ", &env.ecc_mode()},
      {"MIG ", &env.mig_mode()},
      {"MPS ", &env.mps_state()},
      {"application clocks ", &env.application_clocks()}};
  for (const auto& [name, value] : named) {
    if (!value->empty()) parts.push_back(absl::StrCat(name, *value));
  }
  if (env.power_limit_watts() > 0) {
    parts.push_back(absl::StrFormat("power limit %.0f W", env.power_limit_watts()));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::string RenderEnvironment(const v1::Environment& env) {
  FieldList f;
  std::string device = env.device_id();
  if (!env.device_name().empty()) {
    absl::StrAppend(&device, device.empty() ? "" : " ", env.device_name());
  }
  if (!env.device_uuid().empty()) absl::StrAppend(&device, " (", env.device_uuid(), ")");
  if (env.sm_count() > 0) absl::StrAppend(&device, ", ", env.sm_count(), " SMs");
  if (!device.empty()) f.Add("Device", device);
  std::vector<std::string> software;
  if (!env.driver_version().empty()) software.push_back("driver " + env.driver_version());
  if (!env.runtime_version().empty()) software.push_back("runtime " + env.runtime_version());
  if (!env.kbench_version().empty()) software.push_back("kbench " + env.kbench_version());
  if (!env.cuda_toolkit_version().empty()) {
    software.push_back("toolkit " + env.cuda_toolkit_version());
  }
  if (!env.vbios_version().empty()) software.push_back("VBIOS " + env.vbios_version());
  if (!software.empty()) f.Add("Software", absl::StrJoin(software, ", "));
  if (const std::string config = DeviceConfiguration(env); !config.empty()) {
    f.Add("Config", config);
  }
  if (!env.host().empty() || env.cpu_threads() > 0) {
    f.Add("Host",
          absl::StrCat(
              env.host().empty() ? "-" : env.host(),
              env.cpu_threads() > 0 ? absl::StrCat(", ", env.cpu_threads(), " CPU threads") : ""));
  }
  if (env.seed() != 0) {
    f.Add("Seed", absl::StrCat(env.seed(),
                               env.check_seed() != 0
                                   ? absl::StrCat(" (timed inputs); checked on ", env.check_seed(),
                                                  " and ", env.timed_check_seed())
                                   : ""));
  }
  if (env.estimated_sm_clock_mhz() > 0) {
    f.Add("SM clock", absl::StrFormat("%.0f MHz estimated while sampling (default %.0f MHz)",
                                      env.estimated_sm_clock_mhz(), env.default_sm_clock_mhz()));
  }
  if (env.clock_floor_mhz() > 0) {
    const char* basis = env.clock_floor_basis() == v1::HARNESS_CLOCK_FLOOR_BASIS_WARMUP_PROBE
                            ? "the clock probed at warm-up (clocks locked low)"
                            : "the maximum SM clock";
    f.Add("Clock floor",
          absl::StrFormat("%.0f MHz (%.0f%% of %s, %.0f MHz): samples below it discarded",
                          env.clock_floor_mhz(),
                          100 * env.clock_floor_mhz() / env.clock_floor_reference_mhz(), basis,
                          env.clock_floor_reference_mhz()));
  }
  if (env.violation_counters_read()) {
    f.Add("Held down",
          absl::StrFormat("during sampling (NVML violation counters): power %s, thermal %s, "
                          "board limit %s, reliability %s",
                          FormatSeconds(env.power_violation_seconds()),
                          FormatSeconds(env.thermal_violation_seconds()),
                          FormatSeconds(env.board_limit_violation_seconds()),
                          FormatSeconds(env.reliability_violation_seconds())));
  }
  if (const std::string before = ClockSummary(env.before()); !before.empty()) {
    f.Add("Before", before);
  }
  if (const std::string after = ClockSummary(env.after()); !after.empty()) f.Add("After", after);
  return f.empty() ? "" : f.Render(2);
}

std::string RenderResult(const v1::Job& job) {
  const v1::JobResult& result = job.result();
  std::string out;
  if (result.variants_size() == 1) {
    const v1::VariantResult& v = result.variants(0);
    absl::StrAppend(&out, "Result: ", job.spec().kernel(), "/", v.variant(), ", ",
                    ModeName(v.mode()), "\n", RenderVariant(v, job.spec()));
  } else if (result.variants_size() > 1) {
    absl::StrAppend(&out, "Result: ", job.spec().kernel(), " ", Shape(job.spec()), ", ",
                    ModeName(result.variants(0).mode()), ", variants sampled interleaved\n",
                    RenderCompareTable(result));
  }
  if (const std::string user = RenderUserModules(result); !user.empty()) {
    absl::StrAppend(&out, "\n", user);
  }
  if (result.has_compile()) {
    if (!out.empty()) out += "\n";
    absl::StrAppend(&out, RenderCompileResult(result.compile()));
  }
  if (result.has_profile()) {
    if (!out.empty()) out += "\n";
    absl::StrAppend(&out, RenderProfile(result.profile()));
  }
  if (const std::string env = RenderEnvironment(result.environment()); !env.empty()) {
    if (!out.empty()) out += "\n";
    absl::StrAppend(&out, "Environment:\n", env);
  }
  return out;
}

std::string RenderJobsTable(const std::vector<v1::Job>& jobs, absl::Time now) {
  Table table(
      {"ID", "STATE", "KIND", "KERNEL", "VARIANTS", "SHAPE", "DTYPE", "DEVICE", "AGE", "RESULT"});
  table.SetMaxWidth(4, 32);
  table.AlignRight(8);
  table.WideOnly(2).WideOnly(6);  // kind and dtype: -o wide
  for (const v1::Job& job : jobs) {
    const v1::JobSpec& spec = job.spec();
    table.AddRow({job.id(), StateName(job.state()), KindName(spec.kind()), spec.kernel(),
                  absl::StrJoin(VariantNames(spec), ","), Shape(spec),
                  spec.dtype() == v1::DTYPE_UNSPECIFIED ? "f32" : DTypeName(spec.dtype()),
                  job.device().empty() ? spec.device() : job.device(),
                  HasTime(job.create_time())
                      ? FormatElapsed(absl::ToDoubleSeconds(now - ToTime(job.create_time())))
                      : "-",
                  JobResultCell(job)});
  }
  return table.Render();
}

}  // namespace kbench::client
