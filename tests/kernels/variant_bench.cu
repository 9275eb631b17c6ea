// kernels_bench: a small stand-alone timer for the CUDA variants, used to tune them before the
// service's harness exists and to cross-check it. Each sample flushes L2 (a 256 MiB memset, as
// triton.testing.do_bench does), then times one launch between events; prints the median.
// Usage: kernels_bench [--min-time=SECONDS] OP:VARIANT:DTYPE:SHAPE[:param=v,...] ...
//   e.g. kernels_bench copy:vectorized:f32:16777216 matmul:cublas:bf16:4096x4096x4096
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "kernels/catalogue.h"
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/cuda/elementwise.cuh"
#include "kernels/random.h"

namespace kbench::kernels::cuda {
namespace {

#define BENCH_CHECK(call)                                                                        \
  do {                                                                                           \
    const cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s failed: %s at line %d\n", #call, cudaGetErrorName(e_), __LINE__); \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

template <typename T>
__global__ void FillKernel(T* p, int64_t n, uint64_t seed, uint32_t tensor, float scale) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    p[i] = FromFloat<T>(UniformAt(seed, tensor, static_cast<uint64_t>(i), scale));
  }
}

bool ParseSpec(const std::string& spec, Problem* p) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  if (parts.size() < 4) return false;
  p->op = parts[0];
  p->variant = parts[1];
  absl::StatusOr<DType> d = ParseDType(parts[2]);
  if (!d.ok()) return false;
  p->dtype = *d;
  for (absl::string_view s : absl::StrSplit(parts[3], 'x')) {
    int64_t v;
    if (!absl::SimpleAtoi(s, &v)) return false;
    p->shape.push_back(v);
  }
  if (parts.size() > 4) {
    for (absl::string_view kv : absl::StrSplit(parts[4], ',')) {
      std::vector<std::string> a = absl::StrSplit(kv, '=');
      int64_t v;
      if (a.size() != 2 || !absl::SimpleAtoi(a[1], &v)) return false;
      p->params[a[0]] = v;
    }
  }
  return true;
}

// Median seconds of `launch` over samples that each start with a flushed L2.
template <typename Fn>
double TimeMedian(Fn&& launch, cudaStream_t stream, void* flush, size_t flush_bytes,
                  cudaEvent_t start, cudaEvent_t stop, double min_time) {
  launch();
  BENCH_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  double total = 0;
  while ((total < min_time || times.size() < 10) && times.size() < 2000) {
    BENCH_CHECK(cudaMemsetAsync(flush, times.size() & 0xFF, flush_bytes, stream));
    BENCH_CHECK(cudaEventRecord(start, stream));
    launch();
    BENCH_CHECK(cudaEventRecord(stop, stream));
    BENCH_CHECK(cudaEventSynchronize(stop));
    float ms;
    BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1e-3);
    total += ms * 1e-3;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// --sweep: the vectorized elementwise kernel's block size and vectors per thread, for square
// (1 read + 1 write) and add (2 reads + 1 write), to pick kElementwiseThreads/Unroll.
template <int kThreads, int kUnroll, bool kStreaming>
void SweepOne(const float* a, const float* b, float* out, int64_t n, cudaStream_t stream,
              void* flush, size_t flush_bytes, cudaEvent_t start, cudaEvent_t stop) {
  const int64_t blocks = std::max<int64_t>(1, CeilDiv(n / 4, int64_t{kThreads} * kUnroll));
  const double sq = TimeMedian(
      [&] {
        VectorizedElementwiseKernel<1, float, float, float, SquareOp, kThreads, kUnroll, kStreaming>
            <<<blocks, kThreads, 0, stream>>>(a, b, out, n, SquareOp{});
      },
      stream, flush, flush_bytes, start, stop, 0.15);
  const double ad = TimeMedian(
      [&] {
        VectorizedElementwiseKernel<2, float, float, float, AddOp, kThreads, kUnroll, kStreaming>
            <<<blocks, kThreads, 0, stream>>>(a, b, out, n, AddOp{});
      },
      stream, flush, flush_bytes, start, stop, 0.15);
  std::printf(
      "sweep n=%ld threads=%d unroll=%d streaming=%d square %.2f us %.1f GB/s add %.2f us %.1f "
      "GB/s\n",
      static_cast<long>(n), kThreads, kUnroll, int{kStreaming}, sq * 1e6, 8.0 * n / sq * 1e-9,
      ad * 1e6, 12.0 * n / ad * 1e-9);
  std::fflush(stdout);
}

void Sweep(cudaStream_t stream, void* flush, size_t flush_bytes, cudaEvent_t start,
           cudaEvent_t stop) {
  for (int64_t n : {int64_t{4096} * 4096, int64_t{10000} * 10000}) {
    float *a, *b, *out;
    BENCH_CHECK(cudaMalloc(&a, n * 4));
    BENCH_CHECK(cudaMalloc(&b, n * 4));
    BENCH_CHECK(cudaMalloc(&out, n * 4));
    FillKernel<float><<<1024, 256, 0, stream>>>(a, n, 1, 0, 1.0f);
    FillKernel<float><<<1024, 256, 0, stream>>>(b, n, 1, 1, 1.0f);
    SweepOne<256, 1, false>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<256, 1, true>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<512, 1, false>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<512, 1, true>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<128, 1, false>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<128, 1, true>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<256, 2, true>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<256, 1, false>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    SweepOne<256, 1, true>(a, b, out, n, stream, flush, flush_bytes, start, stop);
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
  }
}

int Run(int argc, char** argv) {
  double min_time = 0.3;
  bool sweep = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sweep") {
      sweep = true;
    } else if (a.rfind("--min-time=", 0) == 0) {
      min_time = std::atof(a.c_str() + 11);
    } else {
      specs.push_back(a);
    }
  }
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 2;
  cublasSetStream(handle, stream);
  void* cublas_ws;
  BENCH_CHECK(cudaMalloc(&cublas_ws, 32 << 20));
  cublasSetWorkspace(handle, cublas_ws, 32 << 20);
  const size_t flush_bytes = 256 << 20;
  void* flush;
  BENCH_CHECK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start));
  BENCH_CHECK(cudaEventCreate(&stop));
  std::printf("# device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  if (sweep) Sweep(stream, flush, flush_bytes, start, stop);
  std::printf("%-9s %-16s %-5s %-22s %12s %10s %10s %8s\n", "op", "variant", "dtype", "shape",
              "median_us", "GB/s", "TFLOP/s", "samples");
  for (const std::string& spec : specs) {
    Problem p;
    if (!ParseSpec(spec, &p)) {
      std::fprintf(stderr, "bad spec '%s'\n", spec.c_str());
      return 2;
    }
    if (absl::Status s = ValidateProblem(&p); !s.ok()) {
      std::fprintf(stderr, "%s: %s\n", spec.c_str(), std::string(s.message()).c_str());
      return 2;
    }
    const Operation& op = *FindOperation(p.op);
    const CudaVariant* cv = FindCudaVariant(p.op, p.variant);
    if (cv == nullptr) {
      std::fprintf(stderr, "%s: not a CUDA variant\n", spec.c_str());
      return 2;
    }
    const Layout layout = op.layout(p);
    const size_t esize = StorageBytes(p.dtype);
    LaunchArgs args;
    args.stream = stream;
    args.prop = &prop;
    args.cublas = handle;
    std::vector<void*> owned;
    for (size_t t = 0; t < layout.inputs.size(); ++t) {
      void* d;
      const int64_t n = layout.inputs[t].elements;
      BENCH_CHECK(cudaMalloc(&d, n * esize));
      owned.push_back(d);
      const float scale = static_cast<float>(layout.input_scale);
      DispatchFloat(p.dtype, [&](auto tag) {
        using T = decltype(tag);
        FillKernel<T><<<1024, 256, 0, stream>>>(static_cast<T*>(d), n, 7, t, scale);
        return absl::OkStatus();
      }).IgnoreError();
      args.inputs.push_back(d);
    }
    for (const TensorSpec& t : layout.outputs) {
      void* d;
      BENCH_CHECK(cudaMalloc(&d, t.elements * esize));
      owned.push_back(d);
      args.outputs.push_back(d);
    }
    if (layout.workspace_bytes > 0) {
      BENCH_CHECK(cudaMalloc(&args.workspace, layout.workspace_bytes));
      owned.push_back(args.workspace);
      args.workspace_bytes = layout.workspace_bytes;
    }
    for (int i = 0; i < 3; ++i) {
      if (absl::Status s = cv->launch(p, args); !s.ok()) {
        std::fprintf(stderr, "%s: %s\n", spec.c_str(), std::string(s.message()).c_str());
        return 2;
      }
    }
    BENCH_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> times;
    double total = 0;
    while ((total < min_time || times.size() < 10) && times.size() < 2000) {
      BENCH_CHECK(cudaMemsetAsync(flush, times.size() & 0xFF, flush_bytes, stream));
      BENCH_CHECK(cudaEventRecord(start, stream));
      cv->launch(p, args).IgnoreError();
      BENCH_CHECK(cudaEventRecord(stop, stream));
      BENCH_CHECK(cudaEventSynchronize(stop));
      float ms;
      BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms * 1e-3);
      total += ms * 1e-3;
    }
    BENCH_CHECK(cudaGetLastError());
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const Cost cost = op.cost(p);
    std::string shape;
    for (size_t i = 0; i < p.shape.size(); ++i)
      shape += (i ? "x" : "") + std::to_string(p.shape[i]);
    for (const auto& [k, v] : p.params) shape += "," + k + "=" + std::to_string(v);
    std::printf("%-9s %-16s %-5s %-22s %12.2f %10.1f %10.2f %8zu\n", p.op.c_str(),
                p.variant.c_str(), DTypeName(p.dtype).c_str(), shape.c_str(), median * 1e6,
                cost.bytes / median * 1e-9, cost.flops / median * 1e-12, times.size());
    std::fflush(stdout);
    for (void* d : owned) cudaFree(d);
  }
  return 0;
}

}  // namespace
}  // namespace kbench::kernels::cuda

int main(int argc, char** argv) { return kbench::kernels::cuda::Run(argc, argv); }
