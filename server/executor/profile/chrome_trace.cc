// Chrome trace assembly. Flow arrows use the v1 flow events that PyTorch's Kineto writes
// ("ph":"s" at the launch call, "ph":"f" with "bp":"e" at the kernel), which both Perfetto and
// chrome://tracing bind to the enclosing slices.
#include "server/executor/profile/chrome_trace.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/common/artifact_write_error.h"
#include "server/executor/profile/demangle.h"
#include "server/executor/profile/trace_clock.h"

namespace kbench::executor::profile {
namespace {

using nlohmann::json;

// Hands out synthetic tracks, one per source, so that a track's slices only nest or follow one
// another. Slices must come in order of start (longer first on ties). Should one source's
// slices still overlap partially (CUPTI gives no such guarantee), the later one goes to a
// second lane of that source rather than corrupt the first.
class TrackAssigner {
 public:
  struct Track {
    int64_t pid;
    int64_t tid;
    std::string name;
    std::vector<uint64_t> open_ends;  // ends of the slices enclosing the last one, innermost last
  };

  int64_t Place(int64_t pid, const std::string& source, uint64_t start, uint64_t end) {
    std::vector<size_t>& lanes = lanes_[{pid, source}];
    for (size_t index : lanes) {
      if (Fits(&tracks_[index], start, end)) return tracks_[index].tid;
    }
    const std::string name =
        lanes.empty() ? source : absl::StrCat(source, " (lane ", lanes.size() + 1, ")");
    lanes.push_back(tracks_.size());
    tracks_.push_back({pid, kSyntheticTidBase + static_cast<int64_t>(tracks_.size()), name, {}});
    Fits(&tracks_.back(), start, end);
    return tracks_.back().tid;
  }

  const std::vector<Track>& tracks() const { return tracks_; }

 private:
  // Whether [start, end) nests in or follows what is open on `t`; if so it is opened there.
  static bool Fits(Track* t, uint64_t start, uint64_t end) {
    while (!t->open_ends.empty() && t->open_ends.back() <= start) t->open_ends.pop_back();
    if (!t->open_ends.empty() && end > t->open_ends.back()) return false;
    t->open_ends.push_back(end);
    return true;
  }

  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> lanes_;
  std::vector<Track> tracks_;
};

// Indices of `records` by start, longer first on ties (parents before children).
template <typename Record>
std::vector<size_t> ByStart(const std::vector<Record>& records) {
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (records[a].start_ns != records[b].start_ns) {
      return records[a].start_ns < records[b].start_ns;
    }
    return records[a].end_ns > records[b].end_ns;
  });
  return order;
}

class TraceBuilder {
 public:
  TraceBuilder(const ActivityLog& log, const AttributedLog& attribution,
               const TraceOptions& options)
      : log_(log), attribution_(attribution), options_(options) {
    base_ns_ = UINT64_MAX;
    const auto see = [&](uint64_t t) {
      if (t != 0) base_ns_ = std::min(base_ns_, t);
    };
    for (const auto& k : log.kernels) see(k.start_ns);
    for (const auto& t : log.transfers) see(t.start_ns);
    for (const auto& a : log.api_calls) see(a.start_ns);
    for (const auto& s : log.syncs) see(s.start_ns);
    for (const auto& o : log.overheads) see(o.start_ns);
    for (const auto& s : log.spans) see(s.start_ns);
    for (const auto& c : log.counters) see(c.time_ns);
    if (base_ns_ == UINT64_MAX) base_ns_ = 0;
    for (const auto& a : log.api_calls) host_pid_ = a.process_id;
    for (const auto& s : log.spans) host_pid_ = host_pid_ != 0 ? host_pid_ : s.process_id;
  }

  // The document, event by event: the trace is never held whole as text.
  void Write(std::ostream& out) {
    Collect();
    out << "{\"traceEvents\":[";
    bool first = true;
    const auto emit = [&](json& e) {
      out << (first ? "\n" : ",\n") << e.dump();
      first = false;
      e = nullptr;  // its memory goes as it is written
    };
    for (json& e : metadata_) emit(e);
    for (Slice_& s : slices_) emit(s.event);
    for (json& e : flows_) emit(e);
    out << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" << OtherData().dump() << "}\n";
  }

 private:
  // Every event, in the order written: metadata, slices by time (parents before children at
  // equal timestamps, so viewers nest them), then flows.
  void Collect() {
    AddSpans();
    AddApiCalls();
    AddSyncs();
    AddOverheads();
    AddKernels();
    AddTransfers();
    AddCounters();
    std::stable_sort(slices_.begin(), slices_.end(), [](const Slice_& a, const Slice_& b) {
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.dur > b.dur;
    });
    AddMetadata(&metadata_);
  }

  json OtherData() const {
    json other = {{"base_time_ns", base_ns_},
                  {"clock", absl::StrCat(kTraceClockName, " (CUPTI timestamp callback), ns")},
                  {"dropped_records", log_.dropped_records}};
    for (const auto& [k, v] : options_.metadata) other[k] = v;
    return other;
  }

  // Microseconds since base, rounded to the nanosecond.
  double Us(uint64_t ns) const {
    const int64_t rel = static_cast<int64_t>(ns) - static_cast<int64_t>(base_ns_);
    return static_cast<double>(rel) / 1000.0;
  }
  double DurUs(uint64_t start, uint64_t end) const {
    return end > start ? static_cast<double>(end - start) / 1000.0 : 0.0;
  }

  void Slice(const std::string& name, const std::string& cat, int64_t pid, int64_t tid,
             uint64_t start, uint64_t end, json args) {
    json e = {{"ph", "X"},
              {"name", name},
              {"cat", cat},
              {"pid", pid},
              {"tid", tid},
              {"ts", Us(start)},
              {"dur", DurUs(start, end)}};
    if (!args.empty()) e["args"] = std::move(args);
    slices_.push_back({Us(start), DurUs(start, end), std::move(e)});
  }

  void AddSpans() {
    for (const HostSpan& s : log_.spans) {
      host_threads_.insert(s.thread_id);
      std::string name = s.phase == kPhaseIteration ? absl::StrCat("iteration ", s.iteration)
                                                    : absl::StrCat(s.phase, " ", s.variant);
      json args = {{"phase", s.phase}, {"variant", s.variant}};
      if (s.iteration >= 0) args["iteration"] = s.iteration;
      Slice(name, "phase", host_pid_, s.thread_id, s.start_ns, s.end_ns, std::move(args));
    }
  }

  void AddApiCalls() {
    for (const ApiActivity& a : log_.api_calls) {
      host_threads_.insert(a.thread_id);
      const bool runtime = a.domain == ApiActivity::Domain::kRuntime;
      Slice(a.name, runtime ? "cuda_runtime" : "cuda_driver", a.process_id, a.thread_id, a.start_ns,
            a.end_ns,
            {{"correlation", a.correlation_id},
             {"cbid", a.callback_id},
             {"return_value", a.return_value}});
    }
  }

  // A thread blocks in one wait at a time, so a (thread, type) source's slices never overlap;
  // two threads' waits, or a stream_wait_event beside a synchronize, may.
  void AddSyncs() {
    // The host thread that made each API call (a sync record names its call by correlation).
    std::map<uint32_t, uint32_t> thread_of_call;
    for (const ApiActivity& a : log_.api_calls) thread_of_call[a.correlation_id] = a.thread_id;
    for (size_t i : ByStart(log_.syncs)) {
      const SyncActivity& s = log_.syncs[i];
      const auto call = thread_of_call.find(s.correlation_id);
      const uint32_t thread = call == thread_of_call.end() ? 0 : call->second;
      const std::string source =
          thread == 0 ? absl::StrCat("CUDA sync: ", s.type)
                      : absl::StrCat("CUDA sync: ", s.type, " (thread ", thread, ")");
      Slice(absl::StrCat("sync: ", s.type), "cuda_sync", host_pid_,
            tracks_.Place(host_pid_, source, s.start_ns, s.end_ns), s.start_ns, s.end_ns,
            {{"type", s.type},
             {"stream", s.stream},
             {"context", s.context},
             {"thread", thread},
             {"correlation", s.correlation_id}});
    }
  }

  // CUPTI's buffer flushes run on its own thread while the job's thread waits in instrumentation
  // or a buffer request, so each (thread or device, kind) gets its own track.
  void AddOverheads() {
    for (size_t i : ByStart(log_.overheads)) {
      const OverheadActivity& o = log_.overheads[i];
      const int64_t pid = o.on_thread ? host_pid_ : kDevicePidBase + o.device;
      if (!o.on_thread) devices_.insert(o.device);
      const std::string source =
          o.on_thread ? absl::StrCat("CUPTI overhead: ", o.kind, " (thread ", o.thread_id, ")")
                      : absl::StrCat("CUPTI overhead: ", o.kind);
      json args = o.on_thread ? json{{"thread", o.thread_id}} : json{{"device", o.device}};
      Slice(o.kind, "cupti_overhead", pid, tracks_.Place(pid, source, o.start_ns, o.end_ns),
            o.start_ns, o.end_ns, std::move(args));
    }
  }

  void AddPhaseArgs(const Attribution& a, json* args) {
    if (a.phase_span >= 0) {
      const HostSpan& s = log_.spans[static_cast<size_t>(a.phase_span)];
      (*args)["phase"] = s.phase;
      (*args)["variant"] = s.variant;
    }
    if (a.iteration_span >= 0) {
      (*args)["iteration"] = log_.spans[static_cast<size_t>(a.iteration_span)].iteration;
    }
  }

  void Flow(const Attribution& a, uint32_t correlation, int64_t pid, int64_t tid, uint64_t start) {
    if (a.launch_api < 0) return;
    const ApiActivity& api = log_.api_calls[static_cast<size_t>(a.launch_api)];
    flows_.push_back({{"ph", "s"},
                      {"id", correlation},
                      {"pid", api.process_id},
                      {"tid", api.thread_id},
                      {"ts", Us(api.start_ns)},
                      {"cat", "ac2g"},
                      {"name", "launch"}});
    flows_.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"id", correlation},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", Us(start)},
                      {"cat", "ac2g"},
                      {"name", "launch"}});
  }

  void AddKernels() {
    for (size_t i = 0; i < log_.kernels.size(); ++i) {
      const KernelActivity& k = log_.kernels[i];
      const Attribution& a = attribution_.kernels[i];
      streams_.insert({k.device, k.stream});
      json args = {{"grid", {k.grid[0], k.grid[1], k.grid[2]}},
                   {"block", {k.block[0], k.block[1], k.block[2]}},
                   {"registers per thread", k.registers_per_thread},
                   {"static shared memory", k.static_shared_bytes},
                   {"dynamic shared memory", k.dynamic_shared_bytes},
                   {"local memory per thread", k.local_bytes_per_thread},
                   {"device", k.device},
                   {"stream", k.stream},
                   {"correlation", k.correlation_id},
                   {"mangled name", k.name}};
      if (auto f = log_.functions.find(k.name);
          f != log_.functions.end() && f->second.max_threads_per_block > 0) {
        args["max threads per block"] = f->second.max_threads_per_block;
      }
      if (options_.limits.has_value()) {
        const Occupancy occ = TheoreticalOccupancy(
            *options_.limits, {.threads_per_block = k.block[0] * k.block[1] * k.block[2],
                               .registers_per_thread = k.registers_per_thread,
                               .static_shared_bytes = k.static_shared_bytes,
                               .dynamic_shared_bytes = k.dynamic_shared_bytes});
        args["theoretical occupancy %"] = std::round(1000 * occ.fraction) / 10;
      }
      AddPhaseArgs(a, &args);
      const int64_t pid = kDevicePidBase + k.device;
      Slice(Demangle(k.name), "kernel", pid, k.stream, k.start_ns, k.end_ns, std::move(args));
      Flow(a, k.correlation_id, pid, k.stream, k.start_ns);
    }
  }

  // NVML's readings as counter tracks under the device's process (the device of the first
  // stream drawn; a profile runs on one device): power, the SM and memory clocks, temperature.
  void AddCounters() {
    if (log_.counters.empty()) return;
    const uint32_t device = streams_.empty() ? 0 : streams_.begin()->first;
    devices_.insert(device);
    const int64_t pid = kDevicePidBase + device;
    const auto counter = [&](const char* name, uint64_t t, json args) {
      json e = {
          {"ph", "C"}, {"name", name}, {"pid", pid}, {"ts", Us(t)}, {"args", std::move(args)}};
      slices_.push_back({Us(t), 0.0, std::move(e)});
    };
    for (const CounterSample& c : log_.counters) {
      if (c.power_watts) counter("GPU power", c.time_ns, {{"watts", *c.power_watts}});
      if (c.sm_clock_mhz > 0 || c.memory_clock_mhz > 0) {
        counter("GPU clocks", c.time_ns,
                {{"sm MHz", c.sm_clock_mhz}, {"memory MHz", c.memory_clock_mhz}});
      }
      if (c.temperature_c > 0) counter("GPU temperature", c.time_ns, {{"C", c.temperature_c}});
    }
  }

  void AddTransfers() {
    for (size_t i = 0; i < log_.transfers.size(); ++i) {
      const TransferActivity& t = log_.transfers[i];
      const Attribution& a = attribution_.transfers[i];
      streams_.insert({t.device, t.stream});
      const bool memset = t.kind == TransferActivity::Kind::kMemset;
      json args = {{"bytes", t.bytes},
                   {"device", t.device},
                   {"stream", t.stream},
                   {"correlation", t.correlation_id}};
      if (!memset) args["kind"] = t.copy_kind;
      if (t.end_ns > t.start_ns) {
        args["GB/s"] = static_cast<double>(t.bytes) / static_cast<double>(t.end_ns - t.start_ns);
      }
      AddPhaseArgs(a, &args);
      const int64_t pid = kDevicePidBase + t.device;
      Slice(memset ? "Memset" : absl::StrCat("Memcpy ", t.copy_kind), memset ? "memset" : "memcpy",
            pid, t.stream, t.start_ns, t.end_ns, std::move(args));
      Flow(a, t.correlation_id, pid, t.stream, t.start_ns);
    }
  }

  void Meta(const char* what, int64_t pid, std::optional<int64_t> tid, json args,
            std::vector<json>* events) {
    json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", std::move(args)}};
    if (tid.has_value()) e["tid"] = *tid;
    events->push_back(std::move(e));
  }

  void AddMetadata(std::vector<json>* events) {
    if (host_pid_ != 0 || !host_threads_.empty()) {
      Meta("process_name", host_pid_, std::nullopt,
           {{"name", absl::StrCat("kbench executor (pid ", host_pid_, ")")}}, events);
      Meta("process_sort_index", host_pid_, std::nullopt, {{"sort_index", 0}}, events);
      for (uint32_t tid : host_threads_) {
        Meta("thread_name", host_pid_, tid, {{"name", absl::StrCat("host thread ", tid)}}, events);
      }
    }
    for (const auto& [device, stream] : streams_) devices_.insert(device);
    for (uint32_t device : devices_) {
      const int64_t pid = kDevicePidBase + device;
      Meta("process_name", pid, std::nullopt, {{"name", absl::StrCat("GPU ", device)}}, events);
      Meta("process_sort_index", pid, std::nullopt, {{"sort_index", 1 + device}}, events);
    }
    for (const auto& [device, stream] : streams_) {
      Meta("thread_name", kDevicePidBase + device, stream,
           {{"name", absl::StrCat("stream ", stream)}}, events);
    }
    // Below the threads and streams, in the order they were first used.
    for (const TrackAssigner::Track& t : tracks_.tracks()) {
      Meta("thread_name", t.pid, t.tid, {{"name", t.name}}, events);
      Meta("thread_sort_index", t.pid, t.tid, {{"sort_index", t.tid}}, events);
    }
  }

  const ActivityLog& log_;
  const AttributedLog& attribution_;
  const TraceOptions& options_;
  uint64_t base_ns_ = 0;
  uint32_t host_pid_ = 0;
  std::set<uint32_t> host_threads_;
  std::set<std::pair<uint32_t, int64_t>> streams_;
  std::set<uint32_t> devices_;
  TrackAssigner tracks_;
  struct Slice_ {
    double ts, dur;
    json event;
  };
  std::vector<json> metadata_;
  std::vector<Slice_> slices_;
  std::vector<json> flows_;
};

}  // namespace

json BuildChromeTrace(const ActivityLog& log, const AttributedLog& attribution,
                      const TraceOptions& options) {
  std::stringstream text;
  TraceBuilder(log, attribution, options).Write(text);
  return json::parse(text.str());
}

absl::Status WriteChromeTrace(const ActivityLog& log, const AttributedLog& attribution,
                              const TraceOptions& options, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return ArtifactWriteError(path, errno);
  TraceBuilder(log, attribution, options).Write(out);
  out.close();
  if (!out) return ArtifactWriteError(path, errno);
  return absl::OkStatus();
}

}  // namespace kbench::executor::profile
