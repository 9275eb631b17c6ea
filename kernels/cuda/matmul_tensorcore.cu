// matmul tensorcore: bf16/f16 in, f32 accumulate, on Hopper's warpgroup tensor-core instruction
// (wgmma, sm_90a) fed by the bulk tensor copy engine (TMA) through a 4-stage shared-memory ring;
// one producer warpgroup loads, two consumer warpgroups multiply (warp specialisation).
// Built for sm_90a only (see CMakeLists.txt); launches fail cleanly on other devices.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/variant_tables.h"
#include "kernels/ops/workspace.h"

namespace kbench::kernels::cuda {
namespace {
namespace {

// A CTA computes a 128 x 256 tile of C in K steps of 64; each consumer warpgroup owns 64 rows.
// Per stage: A 128 x 64 (16 KiB) and B 64 x 256 (32 KiB); 4 stages = 192 KiB of shared memory.
constexpr int kBM = 128, kBN = 256, kBK = 64, kStages = 4;
constexpr int kThreads = 384;  // producer warpgroup + 2 consumer warpgroups
constexpr int kStageBytes = (kBM * kBK + kBK * kBN) * 2;
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + barriers, align

__device__ __forceinline__ uint32_t SmemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// wgmma shared-memory matrix descriptor, 128-byte swizzle (PTX ISA, "Matrix Descriptor Format"):
// start address, leading- and stride-dimension byte offsets, all >> 4.
__device__ __forceinline__ uint64_t Descriptor(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16) |
         (static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void BarrierInit(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(SmemAddr(bar)), "r"(count));
}
__device__ __forceinline__ void BarrierWait(uint64_t* bar, int phase) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(SmemAddr(bar)), "r"(phase)
        : "memory");
  } while (!done);
}
__device__ __forceinline__ void BarrierArrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(SmemAddr(bar)) : "memory");
}
__device__ __forceinline__ void BarrierExpectTx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(SmemAddr(bar)),
               "r"(bytes)
               : "memory");
}
// A box of the tensor map at (c0 innermost, c1) into shared memory, completing on `bar`.
__device__ __forceinline__ void TmaLoad(void* dst, const CUtensorMap* map, int c0, int c1,
                                        uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(SmemAddr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(SmemAddr(bar)), "r"(c0), "r"(c1)
      : "memory");
}

// D += A * B, m64 n256 k16, for A and B of PTX type `ptx_type` ("bf16" or "f16", a string
// literal: asm text must be one), f32 accumulators d[0..127]. A K-major (row-major A), B MN-major
// (row-major B): imm-trans-b = 1. One macro, so the two dtypes share a single operand list.
#define KBENCH_WGMMA_M64N256K16(ptx_type, d, desc_a, desc_b)                                       \
  asm volatile(                                                                                    \
      "{\n"                                                                                        \
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." ptx_type "." ptx_type                         \
      " "                                                                                          \
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "     \
      "%19, "                                                                                      \
      "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
      "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
      "%56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, " \
      "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, " \
      "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "   \
      "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, " \
      "%123, %124, %125, %126, %127}, "                                                            \
      "%128, %129, 1, 1, 1, 0, 1;\n"                                                               \
      "}\n"                                                                                        \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), \
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), \
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), \
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), \
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), \
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),          \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),        \
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),        \
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),        \
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])         \
      : "l"(desc_a), "l"(desc_b));

template <typename T>
__device__ __forceinline__ void Wgmma(float (&d)[128], uint64_t desc_a, uint64_t desc_b);
template <>
__device__ __forceinline__ void Wgmma<__nv_bfloat16>(float (&d)[128], uint64_t desc_a,
                                                     uint64_t desc_b) {
  KBENCH_WGMMA_M64N256K16("bf16", d, desc_a, desc_b);
}
template <>
__device__ __forceinline__ void Wgmma<__half>(float (&d)[128], uint64_t desc_a, uint64_t desc_b) {
  KBENCH_WGMMA_M64N256K16("f16", d, desc_a, desc_b);
}

#undef KBENCH_WGMMA_M64N256K16

// Keeps the compiler from moving accumulator reads or writes across wgmma fences.
__device__ __forceinline__ void FenceOperands(float (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ void Store2(__nv_bfloat16* p, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}
__device__ __forceinline__ void Store2(__half* p, float a, float b) {
  *reinterpret_cast<__half2*>(p) = __floats2half2_rn(a, b);
}

template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    MatmulWgmmaKernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, T* __restrict__ c, int m, int n,
                      int k) {
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzled tiles must start on 1024-byte boundaries.
  T* sa = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  T* sb = sa + kStages * kBM * kBK;
  uint64_t* full = reinterpret_cast<uint64_t*>(sb + kStages * kBK * kBN);
  uint64_t* empty = full + kStages;
  const int warpgroup = threadIdx.x / 128, tid = threadIdx.x % 128;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int ktiles = (k + kBK - 1) / kBK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      BarrierInit(&full[s], 1);
      BarrierInit(&empty[s], 2);  // one arrival per consumer warpgroup
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  if (warpgroup == 0) {
    // Producer: one thread keeps the ring full. Out-of-range boxes (matrix edges) are
    // zero-filled by the copy engine, which still counts their full size.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (tid == 0) {
      for (int kt = 0; kt < ktiles; ++kt) {
        const int s = kt % kStages;
        if (kt >= kStages) BarrierWait(&empty[s], ((kt / kStages) - 1) & 1);
        BarrierExpectTx(&full[s], kStageBytes);
        TmaLoad(sa + s * kBM * kBK, &map_a, kt * kBK, m0, &full[s]);
#pragma unroll
        for (int j = 0; j < kBN / 64; ++j) {
          TmaLoad(sb + s * kBK * kBN + j * 64 * kBK, &map_b, n0 + 64 * j, kt * kBK, &full[s]);
        }
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const int consumer = warpgroup - 1;
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.0f;
  for (int kt = 0; kt < ktiles; ++kt) {
    const int s = kt % kStages;
    BarrierWait(&full[s], (kt / kStages) & 1);
    FenceOperands(d);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    const uint32_t a_base = SmemAddr(sa + s * kBM * kBK + consumer * 64 * kBK);
    const uint32_t b_base = SmemAddr(sb + s * kBK * kBN);
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      // A: 64 rows of 128 bytes (64 k), 8-row atoms 1024 bytes apart; a k16 step is 32 bytes.
      // B: per 64-column block a box of 64 k-rows x 128 bytes; blocks 8 KiB apart (LBO),
      // 8-k-row atoms 1024 bytes apart (SBO); a k16 step is two atoms.
      Wgmma<T>(d, Descriptor(a_base + kk * 32, 16, 1024),
               Descriptor(b_base + kk * 16 * 128, 64 * kBK * 2, 1024));
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    FenceOperands(d);
    if (tid == 0) BarrierArrive(&empty[s]);
  }
  // Accumulator fragment: warp w, lane l holds rows w*16 + l/4 (+8) and columns
  // 8j + 2(l%4) (+1) of its 64 x 256 block, registers d[4j .. 4j+3].
  const int warp = tid / 32, lane = tid % 32;
  const int row_base = m0 + consumer * 64 + warp * 16 + lane / 4;
  const bool pairs = (n % 2) == 0;
#pragma unroll
  for (int j = 0; j < kBN / 8; ++j) {
    const int col = n0 + 8 * j + 2 * (lane % 4);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_base + 8 * half;
      if (row >= m) continue;
      T* out = c + static_cast<int64_t>(row) * n + col;
      const float v0 = d[4 * j + 2 * half], v1 = d[4 * j + 2 * half + 1];
      if (pairs && col + 1 < n) {
        Store2(out, v0, v1);
      } else {
        if (col < n) out[0] = FromFloat<T>(v0);
        if (col + 1 < n) out[1] = FromFloat<T>(v1);
      }
    }
  }
}

// Copies a rows x cols matrix into one whose rows are `ld` elements apart (TMA needs row
// pitches that are multiples of 16 bytes).
template <typename T>
__global__ void PadRowsKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                              int64_t cols, int64_t ld) {
  const int64_t total = rows * cols;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[(i / cols) * ld + i % cols] = in[i];
  }
}

// The driver's tensor-map encoder, looked up through the runtime so that nothing links
// libcuda; looked up once per process.
absl::StatusOr<PFN_cuTensorMapEncodeTiled_v12000> LookUpEncodeFn() {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q;
  KBENCH_CUDA_RETURN_IF_ERROR(
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || p == nullptr) {
    return absl::FailedPreconditionError(
        "matmul/tensorcore: the driver has no cuTensorMapEncodeTiled (needs CUDA 12+ driver)");
  }
  return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
}

absl::StatusOr<PFN_cuTensorMapEncodeTiled_v12000> EncodeFn() {
  static const absl::StatusOr<PFN_cuTensorMapEncodeTiled_v12000> fn = LookUpEncodeFn();
  return fn;
}

// A 2-D row-major tensor map (inner dim first) with a box of box_inner x box_outer elements.
absl::Status Encode(CUtensorMap* map, CUtensorMapDataType type, const void* base, int64_t inner,
                    int64_t outer, int64_t ld, uint32_t box_inner, uint32_t box_outer) {
  KBENCH_ASSIGN_OR_RETURN(const PFN_cuTensorMapEncodeTiled_v12000 encode, EncodeFn());
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(outer)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 2};
  const cuuint32_t box[2] = {box_inner, box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r =
      encode(map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return absl::InternalError(absl::StrCat("matmul/tensorcore: cuTensorMapEncodeTiled failed (",
                                            static_cast<int>(r), ") for a ", outer, " x ", inner,
                                            " matrix"));
  }
  return absl::OkStatus();
}

// Lets MatmulWgmmaKernel<T> use kSmemBytes of dynamic shared memory (over the 48 KiB default);
// the attribute belongs to the kernel, so it is set once per process.
template <typename T>
absl::Status AllowWgmmaSharedMemory() {
  static const absl::Status status = []() -> absl::Status {
    KBENCH_CUDA_RETURN_IF_ERROR(cudaFuncSetAttribute(
        MatmulWgmmaKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return absl::OkStatus();
  }();
  return status;
}

template <typename T>
absl::Status LaunchT(const Problem& problem, const LaunchArgs& args, CUtensorMapDataType type) {
  const int64_t m = problem.dim(0), n = problem.dim(1), k = problem.dim(2);
  const T* a = static_cast<const T*>(args.inputs[0]);
  const T* b = static_cast<const T*>(args.inputs[1]);
  T* c = static_cast<T*>(args.outputs[0]);
  if (!Aligned16(a) || !Aligned16(b) || (reinterpret_cast<uintptr_t>(c) & 3) != 0) {
    return absl::InvalidArgumentError("matmul/tensorcore: buffers must be 16-byte aligned");
  }
  // Row pitches that are not multiples of 16 bytes go through padded copies in the workspace,
  // laid out as MatmulWorkspaceBytes says.
  const auto [lda, ldb] = MatmulTensorCorePitches(problem);
  KBENCH_RETURN_IF_ERROR(CheckWorkspace(MatmulWorkspaceBytes(problem), problem, args));
  T* ws = static_cast<T*>(args.workspace);
  if (lda != k) {
    PadRowsKernel<T><<<1024, 256, 0, args.stream>>>(a, ws, m, k, lda);
    KBENCH_CUDA_CHECK_LAUNCH("PadRowsKernel");
    a = ws;
    ws += m * lda;
  }
  if (ldb != n) {
    PadRowsKernel<T><<<1024, 256, 0, args.stream>>>(b, ws, k, n, ldb);
    KBENCH_CUDA_CHECK_LAUNCH("PadRowsKernel");
    b = ws;
  }
  CUtensorMap map_a, map_b;
  KBENCH_RETURN_IF_ERROR(Encode(&map_a, type, a, k, m, lda, kBK, kBM));
  KBENCH_RETURN_IF_ERROR(Encode(&map_b, type, b, n, k, ldb, 64, kBK));
  KBENCH_RETURN_IF_ERROR(AllowWgmmaSharedMemory<T>());
  const dim3 grid(static_cast<unsigned>(CeilDiv(n, kBN)), static_cast<unsigned>(CeilDiv(m, kBM)));
  if (grid.y > kMaxGridY) return absl::InvalidArgumentError("shape: m too large for tensorcore");
  MatmulWgmmaKernel<T><<<grid, kThreads, kSmemBytes, args.stream>>>(
      map_a, map_b, c, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
  KBENCH_CUDA_CHECK_LAUNCH("MatmulWgmmaKernel");
  return absl::OkStatus();
}

}  // namespace

absl::Status LaunchMatmulTensorCore(const Problem& problem, const LaunchArgs& args) {
  switch (problem.dtype) {
    case DType::kBF16:
      return LaunchT<__nv_bfloat16>(problem, args, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
    case DType::kF16:
      return LaunchT<__half>(problem, args, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "dtype: matmul/tensorcore takes bf16 or f16, got ", DTypeName(problem.dtype)));
  }
}

}  // namespace

CudaVariantTable MatmulTensorCoreCudaVariants() {
  return {
      {"matmul", "tensorcore", LaunchMatmulTensorCore},
  };
}

}  // namespace kbench::kernels::cuda
