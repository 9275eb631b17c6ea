// A sweep's (or one job's) results as a table of points x variants, the shape every output
// shares: CSV, JSON, plots and the HTML report. Built from the API's messages only, so kbctl
// and kbenchd (and other reports: history, leaderboards) can both use it. No CUDA.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kbench/v1/sweep.pb.h"
#include "kbench/v1/types.pb.h"

namespace kbench::report {

// One variant at one point. Numbers are 0 when the point's job has no result for it.
struct VariantCell {
  std::string variant;
  bool measured = false;
  double median_seconds = 0;
  double ci_low_seconds = 0;
  double ci_high_seconds = 0;
  double relative_stddev = 0;
  int64_t samples = 0;
  double bytes_per_second = 0;
  double flops_per_second = 0;
  double fraction_of_copy_bandwidth = 0;
  double fraction_of_peak_flops = 0;
  // A collective's (issue 30): bytes_per_second is its bus bandwidth, and this the peak the job
  // measured between its ranks (0 for one-device operations).
  double peer_bandwidth_bytes_per_second = 0;
  // This variant's median over the point's first variant's median (> 1: slower).
  double speedup_vs_first = 0;
  bool checked = false;
  bool passed = false;
  double relative_l2_error = 0;
  double tolerance = 0;
  std::string check_detail;
};

struct PointRow {
  int index = 0;
  // (axis, value) in the sweep's axis order.
  std::vector<std::pair<std::string, std::string>> values;
  std::string job_id;
  // Where the point's job ran ("cuda:0"; in a fleet "gpu-b/cuda:0"); "" before it was placed.
  std::string device;
  // "succeeded", "failed", ...
  std::string state;
  std::string error;
  std::string dtype;
  std::vector<VariantCell> cells;
};

// A roofline ceiling the executor measured (copy bandwidth) or derived from the device's clocks
// and units (peak FLOP/s of a dtype), recovered from the results' fractions.
struct Ceiling {
  std::string label;
  double value = 0;
};

struct SweepTable {
  std::string title;
  std::string kernel;
  // Every device a point ran on, in point order, and as one text ("a/cuda:0, b/cuda:0"). One
  // for a sweep, whose points kbenchd places on one device; several only for a fleet's sweep
  // stored before it did: each point's variants still ran interleaved on one device, but a
  // curve across points then crosses devices.
  std::vector<std::string> devices;
  std::string device;
  std::vector<std::string> axes;
  // Every variant seen, in first-seen order.
  std::vector<std::string> variants;
  std::vector<PointRow> rows;
  // The environment of the first point that has one.
  v1::Environment environment;
  double copy_bandwidth_bytes_per_second = 0;
  // A collective's sweep: the median of its jobs' measured peak between the ranks, the bus
  // bandwidth's ceiling (0 otherwise).
  double peer_bandwidth_bytes_per_second = 0;
  // One per dtype whose peak the results reveal.
  std::vector<Ceiling> peak_flops;
  // How it was measured, in reading order (name, value): mode, placements, stopping rule,
  // inputs, and the command that reproduces it. From the job's (or the sweep's base) spec.
  std::vector<std::pair<std::string, std::string>> protocol;
};

// `jobs` are the sweep's points' jobs in point order (GetSweep with_jobs); a missing job makes
// an empty row.
SweepTable BuildSweepTable(const v1::Sweep& sweep, const std::vector<v1::Job>& jobs);
// One job as a one-row table (kbctl report JOB).
SweepTable BuildJobTable(const v1::Job& job);

// When the points ran on several devices: what that means for reading the table ("" otherwise).
std::string MixedDevicesWarning(const SweepTable& table);

// One line per point x variant, with the axes as leading columns. RFC 4180 quoting.
std::string ToCsv(const SweepTable& table);
// {"kernel", "device", "devices", "axes", "variants", "ceilings", "points": [{"values",
// "job_id", "device", "state", "variants": [{...}]}]}, pretty-printed.
std::string ToJson(const SweepTable& table);

// The lower-case dtype name ("f32") of a proto DType.
std::string DTypeName(v1::DType dtype);
// "succeeded", "failed", ... of a JobState.
std::string JobStateWord(v1::JobState state);

}  // namespace kbench::report
