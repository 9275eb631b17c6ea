// CUPTI activity and callback plumbing. CUPTI delivers records in buffers we hand it, from its
// own thread; each completed buffer is converted to plain structs at once (the strings it
// points to are CUPTI's) and freed.
#include "server/executor/profile/cupti_collector.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/executor/profile/trace_clock.h"

namespace kbench::executor::profile {
namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kBufferAlignment = 8;  // ACTIVITY_RECORD_ALIGNMENT

// The function a kernel was launched from, to query attributes the records lack.
struct LaunchHandle {
  const void* runtime = nullptr;  // host stub or cudaKernel_t (cudaFuncGetAttributes takes both)
  CUfunction driver = nullptr;
};

// The one recording of the process. Never freed: CUPTI's threads may call back at any time,
// and they check `active` under the mutex.
struct Recording {
  std::mutex mu;
  bool active ABSL_GUARDED_BY(mu) = false;
  ActivityLog log ABSL_GUARDED_BY(mu);
  std::unordered_map<std::string, LaunchHandle> handles ABSL_GUARDED_BY(mu);
  std::map<std::pair<int, uint32_t>, std::string> api_names ABSL_GUARDED_BY(mu);
  CUpti_SubscriberHandle subscriber = nullptr;  // only touched under g_start_mu
};

Recording* TheRecording() {
  static Recording* r = new Recording();
  return r;
}
// Serialises Start / Stop / the destructor.
std::mutex g_start_mu;

absl::Status CuptiError(CUptiResult r, const char* call) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  const std::string message =
      absl::StrCat("CUPTI: ", call, " failed: ", text != nullptr ? text : "unknown error");
  if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || r == CUPTI_ERROR_NOT_INITIALIZED ||
      r == CUPTI_ERROR_INVALID_DEVICE || r == CUPTI_ERROR_NOT_COMPATIBLE ||
      r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return absl::FailedPreconditionError(message);
  }
  return absl::InternalError(message);
}

// OK for CUPTI_SUCCESS, else CuptiError.
absl::Status CuptiCheck(CUptiResult r, const char* call) {
  return r == CUPTI_SUCCESS ? absl::OkStatus() : CuptiError(r, call);
}

// Returns from the enclosing function with a Status when a CUPTI call fails.
#define KBENCH_CUPTI_RETURN_IF_ERROR(call) KBENCH_RETURN_IF_ERROR(CuptiCheck((call), #call))

std::string CopyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "unknown";
  }
}

std::string SyncTypeName(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "event_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "stream_wait_event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "stream_synchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "context_synchronize";
    default:
      return "unknown";
  }
}

std::string OverheadKindName(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return "cupti_buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return "cupti_instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return "cupti_resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
      return "module_loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
      return "lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
      return "command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
      return "activity_buffer_request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
      return "uvm_activity_init";
    default:
      return "overhead";
  }
}

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel".
std::string ApiName(Recording* r, CUpti_CallbackDomain domain, uint32_t cbid)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu) {
  auto [it, inserted] = r->api_names.try_emplace({static_cast<int>(domain), cbid});
  if (inserted) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr) {
      std::string s = name;
      const size_t v = s.rfind("_v");
      if (v != std::string::npos && v + 2 < s.size() &&
          s.find_first_not_of("0123456789", v + 2) == std::string::npos) {
        s.resize(v);
      }
      it->second = s;
    } else {
      it->second =
          absl::StrCat(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", " api ", cbid);
    }
  }
  return it->second;
}

void ConvertKernel(const CUpti_Activity* record, ActivityLog& log) {
  const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
  KernelActivity& out = log.kernels.emplace_back();
  out.name = k->name != nullptr ? k->name : "<unnamed kernel>";
  out.start_ns = k->start;
  out.end_ns = k->end;
  out.device = k->deviceId;
  out.context = k->contextId;
  out.stream = k->streamId;
  out.correlation_id = k->correlationId;
  out.grid[0] = k->gridX, out.grid[1] = k->gridY, out.grid[2] = k->gridZ;
  out.block[0] = k->blockX, out.block[1] = k->blockY, out.block[2] = k->blockZ;
  out.registers_per_thread = k->registersPerThread;
  out.static_shared_bytes = k->staticSharedMemory;
  out.dynamic_shared_bytes = k->dynamicSharedMemory;
  out.local_bytes_per_thread = k->localMemoryPerThread;
}

void ConvertMemcpy(const CUpti_Activity* record, ActivityLog& log) {
  const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
  TransferActivity& out = log.transfers.emplace_back();
  out.kind = TransferActivity::Kind::kMemcpy;
  out.copy_kind = CopyKindName(m->copyKind);
  out.bytes = m->bytes;
  out.start_ns = m->start;
  out.end_ns = m->end;
  out.device = m->deviceId;
  out.context = m->contextId;
  out.stream = m->streamId;
  // The runtime call's id when the runtime issued the copy, so arrows start where the
  // job's code called.
  out.correlation_id = m->runtimeCorrelationId != 0 ? m->runtimeCorrelationId : m->correlationId;
}

void ConvertMemset(const CUpti_Activity* record, ActivityLog& log) {
  const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
  TransferActivity& out = log.transfers.emplace_back();
  out.kind = TransferActivity::Kind::kMemset;
  out.bytes = m->bytes;
  out.start_ns = m->start;
  out.end_ns = m->end;
  out.device = m->deviceId;
  out.context = m->contextId;
  out.stream = m->streamId;
  out.correlation_id = m->correlationId;
}

void ConvertApi(Recording* r, const CUpti_Activity* record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu) {
  ActivityLog& log = r->log;
  const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
  const bool runtime = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
  ApiActivity& out = log.api_calls.emplace_back();
  out.domain = runtime ? ApiActivity::Domain::kRuntime : ApiActivity::Domain::kDriver;
  out.name =
      ApiName(r, runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
  out.callback_id = a->cbid;
  out.start_ns = a->start;
  out.end_ns = a->end;
  out.process_id = a->processId;
  out.thread_id = a->threadId;
  out.correlation_id = a->correlationId;
  out.return_value = a->returnValue;
}

void ConvertSync(const CUpti_Activity* record, ActivityLog& log) {
  const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
  SyncActivity& out = log.syncs.emplace_back();
  out.type = SyncTypeName(s->type);
  out.start_ns = s->start;
  out.end_ns = s->end;
  out.context = s->contextId;
  out.stream = s->streamId;
  out.correlation_id = s->correlationId;
}

void ConvertOverhead(const CUpti_Activity* record, ActivityLog& log) {
  const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(record);
  OverheadActivity& out = log.overheads.emplace_back();
  out.kind = OverheadKindName(o->overheadKind);
  out.start_ns = o->start;
  out.end_ns = o->end;
  out.on_thread = o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS ||
                  o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD;
  if (out.on_thread) {
    out.process_id = o->objectId.pt.processId;
    out.thread_id = o->objectId.pt.threadId;
  } else {
    out.device = o->objectId.dcs.deviceId;
  }
}

// Copies one record into the log as plain structs (CUPTI owns its strings and buffers).
void Convert(Recording* r, const CUpti_Activity* record) ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return ConvertKernel(record, r->log);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return ConvertMemcpy(record, r->log);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return ConvertMemset(record, r->log);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return ConvertApi(r, record);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return ConvertSync(record, r->log);
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return ConvertOverhead(record, r->log);
    default:
      return;
  }
}

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI OnBufferCompleted(CUcontext context, uint32_t stream_id, uint8_t* buffer,
                                size_t /*size*/, size_t valid_size) {
  Recording* r = TheRecording();
  {
    std::lock_guard<std::mutex> lock(r->mu);
    CUpti_Activity* record = nullptr;
    while (r->active && valid_size > 0 &&
           cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      if (r->log.RecordCount() >= kMaxActivityRecords) {
        ++r->log.records_over_limit;  // counted, not kept: the job fails with the count
        continue;
      }
      Convert(r, record);
    }
    size_t dropped = 0;
    if (r->active &&
        cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
      r->log.dropped_records += dropped;
    }
  }
  std::free(buffer);
}

// Notes the function of each newly seen kernel at its launch. Runtime launches carry the host
// stub (or, for CUDA 13's <<<>>> path, a cudaKernel_t: the first field of its parameters);
// driver launches (cuBLAS and other libraries) carry a CUfunction.
void CUPTIAPI OnLaunch(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_ENTER || cb->symbolName == nullptr ||
      cb->functionParams == nullptr) {
    return;
  }
  Recording* r = TheRecording();
  LaunchHandle h;
  const void* p = cb->functionParams;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        h.runtime = static_cast<const cudaLaunchKernel_v7000_params*>(p)->func;
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
        h.runtime = static_cast<const cudaLaunchCooperativeKernel_v9000_params*>(p)->func;
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        h.runtime = static_cast<const cudaLaunchKernelExC_v11060_params*>(p)->func;
        break;
      case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
      case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
        h.runtime = *static_cast<const void* const*>(p);
        break;
      default:
        return;
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    switch (cbid) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        h.driver = static_cast<const cuLaunchKernel_params*>(p)->f;
        break;
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        h.driver = static_cast<const cuLaunchKernelEx_params*>(p)->f;
        break;
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        h.driver = static_cast<const cuLaunchCooperativeKernel_params*>(p)->f;
        break;
      default:
        return;
    }
  } else {
    return;
  }
  std::lock_guard<std::mutex> lock(r->mu);
  if (!r->active) return;
  LaunchHandle& known = r->handles[cb->symbolName];
  if (known.runtime == nullptr) known.runtime = h.runtime;
  if (known.driver == nullptr) known.driver = h.driver;
}

constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

absl::Status EnableLaunchCallbacks(Recording* r, bool on) {
  for (CUpti_CallbackId cbid : kRuntimeLaunches) {
    KBENCH_CUPTI_RETURN_IF_ERROR(
        cuptiEnableCallback(on ? 1 : 0, r->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid));
  }
  for (CUpti_CallbackId cbid : kDriverLaunches) {
    KBENCH_CUPTI_RETURN_IF_ERROR(
        cuptiEnableCallback(on ? 1 : 0, r->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
  }
  return absl::OkStatus();
}

absl::Status SubscribeLaunches(Recording* r) {
  KBENCH_CUPTI_RETURN_IF_ERROR(cuptiSubscribe(&r->subscriber, &OnLaunch, nullptr));
  return EnableLaunchCallbacks(r, true);
}

constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};

// cuFuncGetAttribute through the runtime's driver entry point: kbenchd links the driver only
// at run time (the static CUDA runtime loads it).
int DriverMaxThreadsPerBlock(CUfunction f) {
  using Fn = CUresult (*)(int*, CUfunction_attribute, CUfunction);
  static Fn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuFuncGetAttribute", &p, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<Fn>(nullptr);
    }
    return reinterpret_cast<Fn>(p);
  }();
  int value = 0;
  if (fn == nullptr || fn(&value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) != CUDA_SUCCESS) {
    return 0;
  }
  return value;
}

int MaxThreadsPerBlock(const LaunchHandle& h) {
  if (h.runtime != nullptr) {
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, h.runtime) == cudaSuccess) {
      return attributes.maxThreadsPerBlock;
    }
    cudaGetLastError();  // not sticky: clear it so the job's next check does not see it
  }
  return h.driver != nullptr ? DriverMaxThreadsPerBlock(h.driver) : 0;
}

// CUPTI's timestamp callback: every record's start and end, host-side ones at once and
// device-side ones when CUPTI converts GPU ticks to host time (cupti_activity.h).
uint64_t CUPTIAPI TraceTimestamp() { return TraceClockNow(); }

}  // namespace

uint64_t CuptiCollector::Timestamp() { return TraceClockNow(); }

absl::StatusOr<std::unique_ptr<CuptiCollector>> CuptiCollector::Start() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    cudaGetLastError();
    return absl::FailedPreconditionError(
        absl::StrCat("CUPTI: no CUDA device to profile (cudaGetDeviceCount: ",
                     e == cudaSuccess ? "0 devices" : cudaGetErrorName(e), ")"));
  }
  std::lock_guard<std::mutex> lock(g_start_mu);
  Recording* r = TheRecording();
  {
    std::lock_guard<std::mutex> records(r->mu);
    if (r->active) {
      return absl::FailedPreconditionError("CUPTI: a profile is already being recorded");
    }
    r->log = ActivityLog();
    r->handles.clear();
    r->active = true;
  }
  const auto fail = [&](absl::Status s) {
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    if (r->subscriber != nullptr) cuptiUnsubscribe(r->subscriber);
    r->subscriber = nullptr;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard<std::mutex> records(r->mu);
    r->active = false;
    r->log = ActivityLog();
    return s;
  };
  // gettid(), so that host spans and API records share thread ids.
  if (CUptiResult res = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
      res != CUPTI_SUCCESS) {
    return fail(CuptiError(res, "cuptiSetThreadIdType"));
  }
  // Before any kind is enabled, as cupti_activity.h requires, so that no record of this
  // recording is on CUPTI's default CLOCK_REALTIME while the phase spans are on ours.
  if (CUptiResult res = cuptiActivityRegisterTimestampCallback(&TraceTimestamp);
      res != CUPTI_SUCCESS) {
    return fail(CuptiError(res, "cuptiActivityRegisterTimestampCallback"));
  }
  if (CUptiResult res = cuptiActivityRegisterCallbacks(&OnBufferRequested, &OnBufferCompleted);
      res != CUPTI_SUCCESS) {
    return fail(CuptiError(res, "cuptiActivityRegisterCallbacks"));
  }
  for (CUpti_ActivityKind kind : kKinds) {
    if (CUptiResult res = cuptiActivityEnable(kind); res != CUPTI_SUCCESS) {
      return fail(CuptiError(res, absl::StrCat("cuptiActivityEnable(kind ", kind, ")").c_str()));
    }
  }
  // Without the callback API (another tool subscribed) the profile still works; only the
  // kernels' max threads per block stays unknown.
  if (!SubscribeLaunches(r).ok() && r->subscriber != nullptr) {
    cuptiUnsubscribe(r->subscriber);
    r->subscriber = nullptr;
  }
  return std::unique_ptr<CuptiCollector>(new CuptiCollector());
}

absl::Status CuptiCollector::Disable() {
  Recording* r = TheRecording();
  absl::Status status;
  for (CUpti_ActivityKind kind : kKinds) {
    if (CUptiResult res = cuptiActivityDisable(kind); res != CUPTI_SUCCESS && status.ok()) {
      status = CuptiError(res, "cuptiActivityDisable");
    }
  }
  if (r->subscriber != nullptr) {
    cuptiUnsubscribe(r->subscriber);
    r->subscriber = nullptr;
  }
  return status;
}

absl::StatusOr<ActivityLog> CuptiCollector::Stop() {
  if (stopped_) return absl::FailedPreconditionError("CUPTI: profile already stopped");
  stopped_ = true;
  std::lock_guard<std::mutex> lock(g_start_mu);
  Recording* r = TheRecording();
  // Every launch must have finished for its record to be complete.
  const cudaError_t sync = cudaDeviceSynchronize();
  CUptiResult flush = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  absl::Status disabled = Disable();
  // Records produced between the flush and the disable.
  if (flush == CUPTI_SUCCESS) flush = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  ActivityLog log;
  std::unordered_map<std::string, LaunchHandle> handles;
  {
    std::lock_guard<std::mutex> records(r->mu);
    r->active = false;
    log = std::move(r->log);
    handles = std::move(r->handles);
    r->log = ActivityLog();
    r->handles.clear();
  }
  if (sync != cudaSuccess) {
    return absl::InternalError(
        absl::StrCat("cudaDeviceSynchronize() failed while stopping the "
                     "profile: ",
                     cudaGetErrorName(sync)));
  }
  if (flush != CUPTI_SUCCESS) return CuptiError(flush, "cuptiActivityFlushAll");
  if (!disabled.ok()) return disabled;
  for (const auto& [name, handle] : handles) {
    const int threads = MaxThreadsPerBlock(handle);
    if (threads > 0) log.functions[name].max_threads_per_block = threads;
  }
  return log;
}

void CuptiCollector::NoteLaunches(bool on) {
  std::lock_guard<std::mutex> lock(g_start_mu);
  Recording* r = TheRecording();
  if (stopped_ || r->subscriber == nullptr) return;
  // Best effort: without the callbacks only max threads per block goes unknown.
  EnableLaunchCallbacks(r, on).IgnoreError();
}

CuptiCollector::~CuptiCollector() {
  if (stopped_) return;
  std::lock_guard<std::mutex> lock(g_start_mu);
  Disable().IgnoreError();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  Recording* r = TheRecording();
  std::lock_guard<std::mutex> records(r->mu);
  r->active = false;
  r->log = ActivityLog();
  r->handles.clear();
}

}  // namespace kbench::executor::profile
