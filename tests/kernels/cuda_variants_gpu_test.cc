// GPU test (ctest label `gpu`): every CUDA variant in the catalogue, in every dtype it lists, on
// odd shapes (non-multiples of the block size, one row, one column, primes), against its float64
// reference, with a minimal allocate / generate / launch / compare routine of its own; also each
// launch captured in a CUDA graph and replayed twice (the launch contract: capturable and
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
#include "kernels/cuda/cuda_variants.h"
#include "kernels/random.h"

namespace kbench::kernels {
namespace {

bool HaveDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
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

// Odd shapes per operation. An operation missing here fails the test suite (OddShapesCoverEvery
// Operation), so a new operation cannot go untested.
std::vector<std::pair<std::vector<int64_t>, std::map<std::string, int64_t>>> OddShapes(
    const std::string& op, const std::string& variant) {
  if (op == "copy" || op == "square" || op == "add" || op == "gelu") {
    std::vector<std::pair<std::vector<int64_t>, std::map<std::string, int64_t>>> s = {
        {{1}, {}},       {{7}, {}},           {{37, 129}, {}}, {{1, 4099}, {}},
        {{4099, 1}, {}}, {{3, 5, 7, 11}, {}}, {{1048583}, {}}, {{1024, 1024}, {}}};
    // Rows past grid.y's 65535 tiles of 16 exercise the 2-D kernel's row striding.
    if (variant == "naive_2d") s.push_back({{1100003, 1}, {}});
    return s;
  }
  if (op == "softmax") {
    return {{{1, 1}, {}},    {{1, 7}, {}},     {{7, 1}, {}},     {{3, 1000}, {}},
            {{5, 4099}, {}}, {{17, 1024}, {}}, {{33, 257}, {}},  {{1000, 31}, {}},
            {{9, 4096}, {}}, {{3, 32768}, {}}, {{2, 40000}, {}}, {{2, 65537}, {}}};
  }
  if (op == "reduce") {
    return {{{1, 1}, {}},     {{1, 7}, {}},      {{7, 1}, {}},     {{3, 1000}, {}},
            {{5, 4099}, {}},  {{17, 1024}, {}},  {{1000, 31}, {}}, {{2, 100003}, {}},
            {{4099, 33}, {}}, {{1, 1048583}, {}}};
  }
  if (op == "matmul") {
    return {{{1, 1, 1}, {}},        {{1, 37, 5}, {}},      {{37, 1, 41}, {}},
            {{33, 65, 17}, {}},     {{127, 131, 257}, {}}, {{1, 1, 1000}, {}},
            {{300, 200, 1}, {}},    {{128, 256, 64}, {}},  {{257, 129, 136}, {}},
            {{256, 512, 1024}, {}}, {{130, 300, 520}, {}}, {{64, 64, 1001}, {}}};
  }
  if (op == "mlp") {
    return {{{1, 1}, {{"layers", 1}, {"steps", 1}}},    {{1, 7}, {{"layers", 2}, {"steps", 1}}},
            {{5, 1}, {{"layers", 1}, {"steps", 2}}},    {{33, 17}, {{"layers", 3}, {"steps", 1}}},
            {{64, 128}, {{"layers", 2}, {"steps", 2}}}, {{131, 97}, {{"layers", 4}, {"steps", 1}}}};
  }
  return {};
}

// gtest prints a parameter with PrintTo; the case name says it all.
void PrintTo(const Case& c, std::ostream* os) { *os << CaseName(c); }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const Operation& op : Catalogue()) {
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

#define ASSERT_CUDA(call)                                                              \
  do {                                                                                 \
    const cudaError_t kbench_e_ = (call);                                              \
    ASSERT_EQ(kbench_e_, cudaSuccess) << #call << ": " << cudaGetErrorName(kbench_e_); \
  } while (0)

// Device buffers freed on scope exit.
struct DeviceBuffers {
  std::vector<void*> ptrs;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  void* Alloc(size_t bytes) {
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return nullptr;
    ptrs.push_back(p);
    return p;
  }
};

class CudaVariantTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (!HaveDevice()) GTEST_SKIP() << "no CUDA device";
  }
};

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
  const size_t esize = StorageBytes(p.dtype);
  const size_t offset = c.misaligned ? esize : 0;

  DeviceBuffers buffers;
  cuda::LaunchArgs args;
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  args.stream = stream;
  cudaDeviceProp prop;
  int device = 0;
  ASSERT_CUDA(cudaGetDevice(&device));
  ASSERT_CUDA(cudaGetDeviceProperties(&prop, device));
  args.prop = &prop;

  // Inputs: seeded uniform values rounded to the dtype; the reference sees the rounded values.
  HostTensors inputs64;
  for (size_t t = 0; t < layout.inputs.size(); ++t) {
    std::vector<float> v(layout.inputs[t].elements);
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = UniformAt(1234, static_cast<uint32_t>(t), i, static_cast<float>(layout.input_scale));
    }
    const std::vector<char> bytes = ToStorage(v, p.dtype);
    inputs64.push_back(FromStorage(bytes, p.dtype));
    char* d = static_cast<char*>(buffers.Alloc(bytes.size() + 16));
    ASSERT_NE(d, nullptr);
    ASSERT_CUDA(cudaMemcpy(d + offset, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    args.inputs.push_back(d + offset);
  }
  std::vector<size_t> out_bytes;
  for (const TensorSpec& t : layout.outputs) {
    out_bytes.push_back(static_cast<size_t>(t.elements) * esize);
    char* d = static_cast<char*>(buffers.Alloc(out_bytes.back() + 16));
    ASSERT_NE(d, nullptr);
    args.outputs.push_back(d + offset);
  }
  if (layout.workspace_bytes > 0) {
    args.workspace = buffers.Alloc(static_cast<size_t>(layout.workspace_bytes));
    ASSERT_NE(args.workspace, nullptr);
    args.workspace_bytes = static_cast<size_t>(layout.workspace_bytes);
    // Garbage in the workspace: a variant must not rely on it being zero.
    ASSERT_CUDA(cudaMemset(args.workspace, 0xFF, args.workspace_bytes));
  }
  cublasHandle_t handle = nullptr;
  if (cv->needs_cublas) {
    ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasSetStream(handle, stream), CUBLAS_STATUS_SUCCESS);
    // A workspace of our own, so that cuBLAS allocates nothing while a graph is captured.
    void* ws = buffers.Alloc(32 << 20);
    ASSERT_NE(ws, nullptr);
    ASSERT_EQ(cublasSetWorkspace(handle, ws, 32 << 20), CUBLAS_STATUS_SUCCESS);
    args.cublas = handle;
  }

  // The float64 reference.
  HostTensors ref;
  for (const TensorSpec& t : layout.outputs) ref.emplace_back(t.elements, 0.0);
  op.reference(p, inputs64, &ref);
  const double tolerance = op.tolerance(p);

  auto poison = [&]() {
    for (size_t o = 0; o < args.outputs.size(); ++o) {
      ASSERT_CUDA(cudaMemsetAsync(args.outputs[o], 0xFF, out_bytes[o], stream));
    }
  };
  auto compare = [&](const std::string& how) {
    ASSERT_CUDA(cudaStreamSynchronize(stream));
    for (size_t o = 0; o < args.outputs.size(); ++o) {
      std::vector<char> bytes(out_bytes[o]);
      ASSERT_CUDA(cudaMemcpy(bytes.data(), args.outputs[o], bytes.size(), cudaMemcpyDeviceToHost));
      const std::vector<double> got = FromStorage(bytes, p.dtype);
      const CheckResult r = CompareRelativeL2(got, ref[o], tolerance);
      EXPECT_TRUE(r.passed) << how << ", output '" << layout.outputs[o].name << "': " << r.detail
                            << " (relative L2 " << r.relative_l2_error << ", tolerance "
                            << tolerance << ")";
    }
  };

  // 1. A direct launch on poisoned outputs (0xFF bytes are NaN in every float type).
  poison();
  absl::Status s = cv->launch(p, args);
  ASSERT_TRUE(s.ok()) << s;
  compare("direct launch");

  // 2. The same launch captured in a graph, replayed twice: no allocation or sync inside the
  //    launch, and a second run gives the same result (no state left from the first).
  poison();
  ASSERT_CUDA(cudaStreamSynchronize(stream));
  cudaGraph_t graph = nullptr;
  ASSERT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  s = cv->launch(p, args);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(s.ok()) << "launch during capture: " << s;
  ASSERT_EQ(end, cudaSuccess) << "capture: " << cudaGetErrorName(end);
  cudaGraphExec_t exec = nullptr;
  ASSERT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  ASSERT_CUDA(cudaGraphLaunch(exec, stream));
  compare("graph replayed twice");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  if (handle != nullptr) cublasDestroy(handle);
  cudaStreamDestroy(stream);
  ASSERT_CUDA(cudaGetLastError());
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, CudaVariantTest, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return CaseName(info.param);
                         });

// Runs without a device: a catalogue operation with CUDA variants but no odd shapes listed here
// would silently go untested.
TEST(CudaVariantCases, OddShapesCoverEveryOperationWithCudaVariants) {
  for (const Operation& op : Catalogue()) {
    for (const VariantDesc& v : op.variants) {
      if (v.backend == Backend::kCuda) {
        EXPECT_FALSE(OddShapes(op.name, v.name).empty()) << op.name << " has no odd shapes";
      }
    }
  }
}

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
