// GPU test (ctest label `gpu`): every CUDA variant in the catalogue, in every dtype it lists, on
// odd shapes (odd_shapes.h: non-multiples of the block size, one row, one column, primes), against
// its float64 reference, with a minimal allocate / generate / launch / compare routine of its own;
// also each launch captured in a CUDA graph and replayed twice (the launch contract: capturable and
// idempotent). Skips without a device.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/catalogue.h"
#include "kernels/check.h"
#include "kernels/cuda/cublas_util.h"
#include "kernels/cuda/cuda_variants.h"
#include "kernels/random.h"
#include "tests/kernels/odd_shapes.h"

namespace kbench::kernels {
namespace {

// Probed once per process: a binary run without a device skips every case for the price of one
// probe.
bool HaveDevice() {
  static const bool have = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  return have;
}

struct Case {
  std::string op;
  std::string variant;
  DType dtype;
  std::vector<int64_t> shape;
  std::map<std::string, int64_t> params;
  // Offset every buffer by one element, so no pointer is 16-byte aligned.
  bool misaligned = false;
};

std::string CaseName(const Case& c) {
  std::string name =
      absl::StrCat(c.op, "_", c.variant, "_", DTypeName(c.dtype), "_", absl::StrJoin(c.shape, "x"));
  for (const auto& [k, v] : c.params) absl::StrAppend(&name, "_", k, v);
  if (c.misaligned) absl::StrAppend(&name, "_misaligned");
  return name;
}

// gtest prints a parameter with PrintTo; the case name says it all.
void PrintTo(const Case& c, std::ostream* os) { *os << CaseName(c); }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const Operation& op : Catalogue()) {
    // Collectives run on a gang of devices: tests/gpu/collectives_gpu_test.cc.
    if (op.min_devices > 1) continue;
    for (const VariantDesc& v : op.variants) {
      if (v.backend != Backend::kCuda) continue;
      for (DType d : v.dtypes) {
        for (const auto& [shape, params] : OddShapes(op.name, v.name)) {
          cases.push_back({op.name, v.name, d, shape, params, false});
        }
        // One misaligned case per elementwise or row variant and dtype: the vector paths must
        // fall back rather than fault.
        if (op.name != "matmul" && op.name != "mlp") {
          Case c{op.name,
                 v.name,
                 d,
                 op.dims.size() == 2 ? std::vector<int64_t>{5, 1003} : std::vector<int64_t>{1003},
                 {},
                 true};
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

// Host values of one tensor converted to the problem's storage type.
std::vector<char> ToStorage(const std::vector<float>& v, DType dtype) {
  std::vector<char> bytes(v.size() * StorageBytes(dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (dtype) {
      case DType::kF32:
      case DType::kTF32:
        std::memcpy(bytes.data() + 4 * i, &v[i], 4);
        break;
      case DType::kF16: {
        const __half h = __float2half_rn(v[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
        break;
      }
      case DType::kBF16: {
        const __nv_bfloat16 h = __float2bfloat16_rn(v[i]);
        std::memcpy(bytes.data() + 2 * i, &h, 2);
        break;
      }
    }
  }
  return bytes;
}

std::vector<double> FromStorage(const std::vector<char>& bytes, DType dtype) {
  const size_t n = bytes.size() / StorageBytes(dtype);
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case DType::kF32:
      case DType::kTF32: {
        float f;
        std::memcpy(&f, bytes.data() + 4 * i, 4);
        v[i] = f;
        break;
      }
      case DType::kF16: {
        __half h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        v[i] = __half2float(h);
        break;
      }
      case DType::kBF16: {
        __nv_bfloat16 h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        v[i] = __bfloat162float(h);
        break;
      }
    }
  }
  return v;
}

// One variant's problem on the device: buffers laid out as the catalogue's Layout says (offset
// by one element when the case is misaligned), inputs from a fixed seed, and a stream, device
// properties and, for variants that need it, a cuBLAS handle. Every CUDA and cuBLAS call goes
// through the macro family, so a failure names the call; everything is freed on destruction.
class DeviceProblem {
 public:
  DeviceProblem(const Problem& p, const Layout& layout, bool misaligned)
      : p_(p), layout_(layout), offset_(misaligned ? StorageBytes(p.dtype) : 0) {}
  ~DeviceProblem() {
    if (cublas_ != nullptr) cublasDestroy(cublas_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    for (void* ptr : owned_) cudaFree(ptr);
  }

  // Allocates and fills everything; `inputs64` receives the inputs as the reference sees them
  // (rounded to the dtype).
  absl::Status Prepare(bool needs_cublas, HostTensors* inputs64) {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    int device = 0;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
    KBENCH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop_, device));
    args_.stream = stream_;
    args_.prop = &prop_;
    KBENCH_RETURN_IF_ERROR(PrepareInputs(inputs64));
    for (const TensorSpec& t : layout_.outputs) {
      out_bytes_.push_back(static_cast<size_t>(t.elements) * StorageBytes(p_.dtype));
      KBENCH_ASSIGN_OR_RETURN(char* d, Alloc(out_bytes_.back() + 16));
      args_.outputs.push_back(d + offset_);
    }
    if (layout_.workspace_bytes > 0) {
      args_.workspace_bytes = static_cast<size_t>(layout_.workspace_bytes);
      KBENCH_ASSIGN_OR_RETURN(args_.workspace, Alloc(args_.workspace_bytes));
      // Garbage in the workspace: a variant must not rely on it being zero.
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemset(args_.workspace, 0xFF, args_.workspace_bytes));
    }
    if (needs_cublas) KBENCH_RETURN_IF_ERROR(PrepareCublas());
    return absl::OkStatus();
  }

  // Fills the outputs with 0xFF bytes, NaN in every float type.
  absl::Status PoisonOutputs() {
    for (size_t o = 0; o < args_.outputs.size(); ++o) {
      KBENCH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(args_.outputs[o], 0xFF, out_bytes_[o], stream_));
    }
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }

  // Captures one launch in a CUDA graph and replays it twice: the launch contract says it
  // allocates and synchronises nothing, and leaves no state that changes a second run.
  absl::Status LaunchInAGraphTwice(const cuda::CudaVariant& cv) {
    cudaGraph_t graph = nullptr;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
    const absl::Status launched = cv.launch(p_, args_);
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    KBENCH_RETURN_IF_ERROR(launched);
    KBENCH_CUDA_RETURN_IF_ERROR(ended);
    cudaGraphExec_t exec = nullptr;
    absl::Status status = cuda::CudaStatus(cudaGraphInstantiate(&exec, graph, 0),
                                           "cudaGraphInstantiate", __FILE__, __LINE__);
    for (int i = 0; i < 2 && status.ok(); ++i) {
      status =
          cuda::CudaStatus(cudaGraphLaunch(exec, stream_), "cudaGraphLaunch", __FILE__, __LINE__);
    }
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return status;
  }

  // The outputs in float64, after the stream's work is done.
  absl::StatusOr<HostTensors> ReadOutputs() {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    HostTensors outputs;
    for (size_t o = 0; o < args_.outputs.size(); ++o) {
      std::vector<char> bytes(out_bytes_[o]);
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(bytes.data(), args_.outputs[o], bytes.size(), cudaMemcpyDeviceToHost));
      outputs.push_back(FromStorage(bytes, p_.dtype));
    }
    return outputs;
  }

  const cuda::LaunchArgs& args() const { return args_; }

 private:
  absl::StatusOr<char*> Alloc(size_t bytes) {
    void* ptr = nullptr;
    KBENCH_CUDA_RETURN_IF_ERROR(cudaMalloc(&ptr, bytes));
    owned_.push_back(ptr);
    return static_cast<char*>(ptr);
  }

  // Seeded uniform values rounded to the dtype.
  absl::Status PrepareInputs(HostTensors* inputs64) {
    for (size_t t = 0; t < layout_.inputs.size(); ++t) {
      std::vector<float> v(layout_.inputs[t].elements);
      for (size_t i = 0; i < v.size(); ++i) {
        v[i] =
            UniformAt(1234, static_cast<uint32_t>(t), i, static_cast<float>(layout_.input_scale));
      }
      const std::vector<char> bytes = ToStorage(v, p_.dtype);
      inputs64->push_back(FromStorage(bytes, p_.dtype));
      KBENCH_ASSIGN_OR_RETURN(char* d, Alloc(bytes.size() + 16));
      KBENCH_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(d + offset_, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
      args_.inputs.push_back(d + offset_);
    }
    return absl::OkStatus();
  }

  absl::Status PrepareCublas() {
    KBENCH_CUBLAS_RETURN_IF_ERROR(cublasCreate(&cublas_));
    KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSetStream(cublas_, stream_));
    // A workspace of our own, so that cuBLAS allocates nothing while a graph is captured.
    constexpr size_t kCublasWorkspace = 32 << 20;
    KBENCH_ASSIGN_OR_RETURN(char* ws, Alloc(kCublasWorkspace));
    KBENCH_CUBLAS_RETURN_IF_ERROR(cublasSetWorkspace(cublas_, ws, kCublasWorkspace));
    args_.cublas = cublas_;
    return absl::OkStatus();
  }

  const Problem p_;
  const Layout layout_;
  const size_t offset_;
  cudaStream_t stream_ = nullptr;
  cudaDeviceProp prop_{};
  cublasHandle_t cublas_ = nullptr;
  cuda::LaunchArgs args_;
  std::vector<size_t> out_bytes_;
  std::vector<void*> owned_;
};

class CudaVariantTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (!HaveDevice()) GTEST_SKIP() << "no CUDA device";
  }
};

// Each output against the float64 reference under the operation's tolerance.
void ExpectMatches(const std::string& how, const HostTensors& got, const HostTensors& ref,
                   const HostTensors& scales, const Layout& layout, double tolerance) {
  for (size_t o = 0; o < got.size(); ++o) {
    const CheckResult r = CompareRelativeL2(got[o], ref[o], tolerance, scales[o]);
    EXPECT_TRUE(r.passed) << how << ", output '" << layout.outputs[o].name << "': " << r.detail
                          << " (relative L2 " << r.relative_l2_error << ", tolerance " << tolerance
                          << ")";
  }
}

TEST_P(CudaVariantTest, MatchesFloat64ReferenceDirectAndInAGraph) {
  const Case& c = GetParam();
  Problem p;
  p.op = c.op;
  p.variant = c.variant;
  p.shape = c.shape;
  p.dtype = c.dtype;
  p.params = c.params;
  ASSERT_TRUE(ValidateProblem(&p).ok()) << ValidateProblem(&p);
  const Operation& op = *FindOperation(p.op);
  const cuda::CudaVariant* cv = cuda::FindCudaVariant(p.op, p.variant);
  ASSERT_NE(cv, nullptr);
  const Layout layout = op.layout(p);
  DeviceProblem device(p, layout, c.misaligned);
  HostTensors inputs64;
  absl::Status s = device.Prepare(cv->needs_cublas, &inputs64);
  ASSERT_TRUE(s.ok()) << s;
  HostTensors ref;
  for (const TensorSpec& t : layout.outputs) ref.emplace_back(t.elements, 0.0);
  op.reference(p, inputs64, &ref);
  // The operation's error scale where it has one (reduce: sums whose terms cancel).
  HostTensors scales(ref.size());
  if (op.error_scale) {
    for (size_t o = 0; o < ref.size(); ++o) scales[o].assign(ref[o].size(), 0.0);
    op.error_scale(p, inputs64, &scales);
  }

  // 1. A direct launch on poisoned outputs.
  ASSERT_TRUE((s = device.PoisonOutputs()).ok()) << s;
  ASSERT_TRUE((s = cv->launch(p, device.args())).ok()) << s;
  absl::StatusOr<HostTensors> got = device.ReadOutputs();
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectMatches("direct launch", *got, ref, scales, layout, op.tolerance(p));

  // 2. The same launch captured in a graph, replayed twice.
  ASSERT_TRUE((s = device.PoisonOutputs()).ok()) << s;
  ASSERT_TRUE((s = device.LaunchInAGraphTwice(*cv)).ok()) << s;
  got = device.ReadOutputs();
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectMatches("graph replayed twice", *got, ref, scales, layout, op.tolerance(p));
  s = cuda::CudaStatus(cudaGetLastError(), "cudaGetLastError", __FILE__, __LINE__);
  EXPECT_TRUE(s.ok()) << s;
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, CudaVariantTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return CaseName(info.param);
                         });

// A bad launch reports an error naming the CUDA error instead of crashing: a block size over the
// device's limit is refused at launch.
TEST(CudaVariantErrors, LaunchWithoutCublasHandleIsAnErrorNotACrash) {
  if (!HaveDevice()) GTEST_SKIP() << "no CUDA device";
  Problem p;
  p.op = "matmul";
  p.variant = "cublas";
  p.shape = {8, 8, 8};
  ASSERT_TRUE(ValidateProblem(&p).ok());
  cuda::LaunchArgs args;  // no buffers, no handle
  const absl::Status s = cuda::FindCudaVariant("matmul", "cublas")->launch(p, args);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
}

}  // namespace
}  // namespace kbench::kernels
