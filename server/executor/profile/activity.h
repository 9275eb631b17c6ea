// What a profile records, as plain C++ structs: CUPTI's activity records (kernels, copies,
// memsets, API calls, synchronisation, CUPTI's own overhead), the job's host-side phase
// spans and the device's counters. Everything downstream (trace, summary) works on these, so it is
// testable without CUPTI.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbench::executor::profile {

// All timestamps are nanoseconds on the profile's clock (TraceClockNow, trace_clock.h), which
// CUPTI stamps every activity record with through its timestamp callback and the phase recorder
// reads, so host spans and device records line up. (The checked-in fixtures were recorded on
// CUPTI's earlier default, CLOCK_REALTIME: only differences between their timestamps matter.)

struct KernelActivity {
  // As CUPTI reports it (mangled for C++ kernels).
  std::string name;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers_per_thread = 0;
  int64_t static_shared_bytes = 0;
  int64_t dynamic_shared_bytes = 0;
  int64_t local_bytes_per_thread = 0;
};

// A memcpy or a memset: both are device work on a stream that moves or writes bytes.
struct TransferActivity {
  enum class Kind { kMemcpy, kMemset };
  Kind kind = Kind::kMemcpy;
  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... for copies; "" for memsets.
  std::string copy_kind;
  uint64_t bytes = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation_id = 0;
};

// One CUDA runtime or driver API call on a host thread.
struct ApiActivity {
  enum class Domain { kRuntime, kDriver };
  Domain domain = Domain::kRuntime;
  // e.g. "cudaLaunchKernel" (CUPTI's callback name without the "_v7000" version suffix).
  std::string name;
  uint32_t callback_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t process_id = 0;
  // The system thread id (gettid), as CUPTI reports it in CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM.
  uint32_t thread_id = 0;
  uint32_t correlation_id = 0;
  uint32_t return_value = 0;
};

// Time the host spent waiting for the device (stream/event/context synchronisation).
struct SyncActivity {
  // "stream_synchronize", "event_synchronize", "context_synchronize", "stream_wait_event", ...
  std::string type;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  // The API call that waited.
  uint32_t correlation_id = 0;
};

// Time CUPTI itself spent (buffer flushes, instrumentation): shown so nobody mistakes it for
// the kernel's cost.
struct OverheadActivity {
  // "cupti_buffer_flush", "cupti_instrumentation", "driver_compiler", ...
  std::string kind;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  // Set when the overhead belongs to a host thread; otherwise device is set.
  bool on_thread = true;
  uint32_t process_id = 0;
  uint32_t thread_id = 0;
  uint32_t device = 0;
};

// A host-side span the job recorded around one of its phases (also pushed as an NVTX range).
struct HostSpan {
  // "prepare", "check", "warmup", "profile" (the recorded iterations), "iteration".
  std::string phase;
  std::string variant;
  // Index of the iteration inside the "profile" phase; -1 for the other phases.
  int iteration = -1;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t process_id = 0;
  uint32_t thread_id = 0;
};

// Attributes of a kernel's function that the activity records lack, by mangled kernel name.
struct FunctionAttributes {
  int max_threads_per_block = 0;
};

// Everything one profile recorded.
// The most activity records one recording keeps (issue 12, item 8): a bound on the executor's
// memory, since the trace holds each record's event (under 1 KiB) before writing it. A
// 1000-iteration profile (the most a job may ask) of four variants of five kernels each
// records about 60,000 (a kernel and its runtime and driver calls per launch).
inline constexpr uint64_t kMaxActivityRecords = 500'000;

// One reading of the device's counters while a profile records (NVML: power, clocks,
// temperature), drawn as counter tracks beside the device's streams.
struct CounterSample {
  uint64_t time_ns = 0;  // on the records' clock
  std::optional<double> power_watts;
  int sm_clock_mhz = 0;  // 0: not read
  int memory_clock_mhz = 0;
  int temperature_c = 0;
};

struct ActivityLog {
  std::vector<KernelActivity> kernels;
  std::vector<TransferActivity> transfers;
  std::vector<ApiActivity> api_calls;
  std::vector<SyncActivity> syncs;
  std::vector<OverheadActivity> overheads;
  std::vector<HostSpan> spans;
  std::map<std::string, FunctionAttributes> functions;
  // The device's counters over the recording, in time order (empty without NVML).
  std::vector<CounterSample> counters;
  // Records CUPTI dropped because its buffers were full (0 when nothing was lost).
  uint64_t dropped_records = 0;
  // Records delivered once the log held kMaxActivityRecords, and not kept.
  uint64_t records_over_limit = 0;

  // The records kept (spans and functions aside).
  uint64_t RecordCount() const {
    return kernels.size() + transfers.size() + api_calls.size() + syncs.size() + overheads.size();
  }
};

}  // namespace kbench::executor::profile
