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

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/catalogue.h"
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/cublas_util.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/cuda/elementwise.cuh"
#include "kernels/random.h"

namespace kbench::kernels::cuda {
namespace {

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

// Device resources shared by every measurement: the stream, the cuBLAS handle bound to it (with
// a workspace of its own), the L2-flush buffer and the timing events. Freed at exit.
struct Bench {
  cudaStream_t stream = nullptr;
  cudaDeviceProp prop{};
  cublasHandle_t cublas = nullptr;
  void* flush = nullptr;
  size_t flush_bytes = 256 << 20;  // far past the H100's 50 MiB L2
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  double min_time = 0.3;
};

absl::Status CreateBench(Bench* b) {
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&b->prop, 0));
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasCreate(&b->cublas));
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSetStream(b->cublas, b->stream));
  void* cublas_ws = nullptr;
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&cublas_ws, 32 << 20));
  KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSetWorkspace(b->cublas, cublas_ws, 32 << 20));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&b->flush, b->flush_bytes));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&b->start));
  KBENCH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&b->stop));
  return absl::OkStatus();
}

// Median seconds of `launch` (returning absl::Status) over samples that each start with a
// flushed L2.
template <typename Fn>
absl::StatusOr<double> TimeMedian(Fn&& launch, const Bench& b, double min_time) {
  KBENCH_RETURN_IF_ERROR(launch());
  KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(b.stream));
  std::vector<double> times;
  double total = 0;
  while ((total < min_time || times.size() < 10) && times.size() < 2000) {
    KBENCH_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(b.flush, times.size() & 0xFF, b.flush_bytes, b.stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(b.start, b.stream));
    KBENCH_RETURN_IF_ERROR(launch());
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventRecord(b.stop, b.stream));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(b.stop));
    float ms;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, b.start, b.stop));
    times.push_back(ms * 1e-3);
    total += ms * 1e-3;
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// --sweep: the vectorized elementwise kernel's block size and vectors per thread, for square
// (1 read + 1 write) and add (2 reads + 1 write), to pick kElementwiseThreads/Unroll.
template <int kThreads, int kUnroll, bool kStreaming>
absl::Status SweepOne(const float* a, const float* b, float* out, int64_t n, const Bench& bench) {
  const int64_t blocks = std::max<int64_t>(1, CeilDiv(n / 4, int64_t{kThreads} * kUnroll));
  KBENCH_ASSIGN_OR_RETURN(
      const double sq, TimeMedian(
                           [&]() -> absl::Status {
                             VectorizedElementwiseKernel<1, float, float, float, SquareOp, kThreads,
                                                         kUnroll, kStreaming>
                                 <<<blocks, kThreads, 0, bench.stream>>>(a, b, out, n, SquareOp{});
                             KBENCH_CUDA_CHECK_LAUNCH("VectorizedElementwiseKernel");
                             return absl::OkStatus();
                           },
                           bench, 0.15));
  KBENCH_ASSIGN_OR_RETURN(const double ad,
                          TimeMedian(
                              [&]() -> absl::Status {
                                VectorizedElementwiseKernel<2, float, float, float, AddOp, kThreads,
                                                            kUnroll, kStreaming>
                                    <<<blocks, kThreads, 0, bench.stream>>>(a, b, out, n, AddOp{});
                                KBENCH_CUDA_CHECK_LAUNCH("VectorizedElementwiseKernel");
                                return absl::OkStatus();
                              },
                              bench, 0.15));
  std::printf(
      "sweep n=%ld threads=%d unroll=%d streaming=%d square %.2f us %.1f GB/s add %.2f us %.1f "
      "GB/s\n",
      static_cast<long>(n), kThreads, kUnroll, int{kStreaming}, sq * 1e6, 8.0 * n / sq * 1e-9,
      ad * 1e6, 12.0 * n / ad * 1e-9);
  std::fflush(stdout);
  return absl::OkStatus();
}

template <typename T>
absl::Status Fill(T* p, int64_t n, uint64_t seed, uint32_t tensor, float scale,
                  cudaStream_t stream) {
  FillKernel<T><<<1024, 256, 0, stream>>>(p, n, seed, tensor, scale);
  KBENCH_CUDA_CHECK_LAUNCH("FillKernel");
  return absl::OkStatus();
}

absl::Status Sweep(const Bench& bench) {
  for (int64_t n : {int64_t{4096} * 4096, int64_t{10000} * 10000}) {
    float *a, *b, *out;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&a, n * 4));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&b, n * 4));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&out, n * 4));
    KBENCH_RETURN_IF_ERROR(Fill(a, n, 1, 0, 1.0f, bench.stream));
    KBENCH_RETURN_IF_ERROR(Fill(b, n, 1, 1, 1.0f, bench.stream));
    KBENCH_RETURN_IF_ERROR((SweepOne<256, 1, false>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<256, 1, true>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<512, 1, false>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<512, 1, true>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<128, 1, false>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<128, 1, true>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<256, 2, true>(a, b, out, n, bench)));
    // The first two again: drift since the start shows up as a different time.
    KBENCH_RETURN_IF_ERROR((SweepOne<256, 1, false>(a, b, out, n, bench)));
    KBENCH_RETURN_IF_ERROR((SweepOne<256, 1, true>(a, b, out, n, bench)));
    cudaFree(a);
    cudaFree(b);
    cudaFree(out);
  }
  return absl::OkStatus();
}

// Device buffers for one problem, laid out as its Layout says, inputs filled from a fixed seed.
// `owned` collects what the caller frees.
absl::StatusOr<LaunchArgs> PrepareBuffers(const Problem& p, const Layout& layout,
                                          const Bench& bench, std::vector<void*>* owned) {
  const size_t esize = StorageBytes(p.dtype);
  LaunchArgs args;
  args.stream = bench.stream;
  args.prop = &bench.prop;
  args.cublas = bench.cublas;
  for (size_t t = 0; t < layout.inputs.size(); ++t) {
    void* d;
    const int64_t n = layout.inputs[t].elements;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&d, n * esize));
    owned->push_back(d);
    const float scale = static_cast<float>(layout.input_scale);
    KBENCH_RETURN_IF_ERROR(DispatchFloat(p.dtype, [&](auto tag) {
      using T = decltype(tag);
      return Fill(static_cast<T*>(d), n, 7, static_cast<uint32_t>(t), scale, bench.stream);
    }));
    args.inputs.push_back(d);
  }
  for (const TensorSpec& t : layout.outputs) {
    void* d;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&d, t.elements * esize));
    owned->push_back(d);
    args.outputs.push_back(d);
  }
  if (layout.workspace_bytes > 0) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&args.workspace, layout.workspace_bytes));
    owned->push_back(args.workspace);
    args.workspace_bytes = layout.workspace_bytes;
  }
  return args;
}

void PrintRow(const Problem& p, const Cost& cost, double median) {
  std::string shape;
  for (size_t i = 0; i < p.shape.size(); ++i) shape += (i ? "x" : "") + std::to_string(p.shape[i]);
  for (const auto& [k, v] : p.params) shape += "," + k + "=" + std::to_string(v);
  std::printf("%-9s %-16s %-5s %-22s %12.2f %10.1f %10.2f\n", p.op.c_str(), p.variant.c_str(),
              DTypeName(p.dtype).c_str(), shape.c_str(), median * 1e6, cost.bytes / median * 1e-9,
              cost.flops / median * 1e-12);
  std::fflush(stdout);
}

// Two warm-up launches, then the median of flushed-L2 samples.
absl::StatusOr<double> Measure(const CudaVariant& cv, const Problem& p, const LaunchArgs& args,
                               const Bench& bench) {
  for (int i = 0; i < 2; ++i) KBENCH_RETURN_IF_ERROR(cv.launch(p, args));
  return TimeMedian([&] { return cv.launch(p, args); }, bench, bench.min_time);
}

// Times one OP:VARIANT:DTYPE:SHAPE[:params] spec and prints its row.
absl::Status BenchOne(const std::string& spec, const Bench& bench) {
  Problem p;
  if (!ParseSpec(spec, &p))
    return absl::InvalidArgumentError(absl::StrCat("bad spec '", spec, "'"));
  KBENCH_RETURN_IF_ERROR(ValidateProblem(&p));
  const Operation& op = *FindOperation(p.op);
  const CudaVariant* cv = FindCudaVariant(p.op, p.variant);
  if (cv == nullptr) return absl::InvalidArgumentError(absl::StrCat(spec, ": not a CUDA variant"));
  std::vector<void*> owned;
  absl::StatusOr<LaunchArgs> args = PrepareBuffers(p, op.layout(p), bench, &owned);
  const absl::StatusOr<double> median =
      args.ok() ? Measure(*cv, p, *args, bench) : absl::StatusOr<double>(args.status());
  for (void* d : owned) cudaFree(d);
  KBENCH_RETURN_IF_ERROR(median.status());
  PrintRow(p, op.cost(p), *median);
  return absl::OkStatus();
}

absl::Status Run(int argc, char** argv) {
  Bench bench;
  bool sweep = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sweep") {
      sweep = true;
    } else if (a.rfind("--min-time=", 0) == 0) {
      bench.min_time = std::atof(a.c_str() + 11);
    } else {
      specs.push_back(a);
    }
  }
  KBENCH_RETURN_IF_ERROR(CreateBench(&bench));
  std::printf("# device: %s, %d SMs, L2 %d MiB\n", bench.prop.name, bench.prop.multiProcessorCount,
              bench.prop.l2CacheSize >> 20);
  if (sweep) KBENCH_RETURN_IF_ERROR(Sweep(bench));
  std::printf("%-9s %-16s %-5s %-22s %12s %10s %10s\n", "op", "variant", "dtype", "shape",
              "median_us", "GB/s", "TFLOP/s");
  for (const std::string& spec : specs) KBENCH_RETURN_IF_ERROR(BenchOne(spec, bench));
  return absl::OkStatus();
}

}  // namespace
}  // namespace kbench::kernels::cuda

int main(int argc, char** argv) {
  const absl::Status status = kbench::kernels::cuda::Run(argc, argv);
  if (status.ok()) return 0;
  std::fprintf(stderr, "kernels_bench: %s\n", std::string(status.message()).c_str());
  return 2;
}
