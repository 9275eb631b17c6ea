// kbctl kernels OP --abi: every operation's ABI printed as CUDA C and Triton signatures, from the
// KernelInfo the daemon serves (server/common/kernel_info.cc).
#include "client/format/abi_view.h"

#include <gtest/gtest.h>

#include "client/user_kernel_flags.h"
#include "kernels/catalogue.h"
#include "server/common/kernel_info.h"

namespace kbench::client {
namespace {

TEST(AbiView, SoftmaxCudaSignatureListsPointersThenDims) {
  const v1::KernelInfo k = KernelInfoOf(*kernels::FindOperation("softmax"));
  const std::string cuda = RenderCudaSignature(k, v1::DTYPE_F32);
  EXPECT_NE(cuda.find("extern \"C\" __global__ void softmax_kernel("), std::string::npos) << cuda;
  const size_t in = cuda.find("const float* __restrict__ in,");
  const size_t out = cuda.find("float* __restrict__ out,");
  const size_t rows = cuda.find("long long rows,");
  const size_t cols = cuda.find("long long cols  // shape dim");
  ASSERT_NE(in, std::string::npos) << cuda;
  ASSERT_NE(out, std::string::npos) << cuda;
  ASSERT_NE(rows, std::string::npos) << cuda;
  ASSERT_NE(cols, std::string::npos) << cuda;
  EXPECT_LT(in, out);
  EXPECT_LT(out, rows);
  EXPECT_LT(rows, cols);
  EXPECT_NE(cuda.find("rows*cols elements"), std::string::npos) << cuda;
  // The closing parenthesis is code, not part of the last argument's comment.
  EXPECT_EQ(cuda.substr(cuda.size() - 4), "\n);\n") << cuda;
  EXPECT_NE(RenderCudaSignature(k, v1::DTYPE_BF16).find("const __nv_bfloat16* __restrict__ in"),
            std::string::npos);
}

TEST(AbiView, AllReduceTakesItsBuffersEveryRanksBuffersRankAndWorldSize) {
  const v1::KernelInfo k = KernelInfoOf(*kernels::FindOperation("all_reduce"));
  const std::string abi = RenderAbi(k, v1::DTYPE_BF16);
  for (const char* line :
       {"extern \"C\" __global__ void all_reduce_kernel(",
        "    const __nv_bfloat16* __restrict__ send,  // input, count elements",
        "    __nv_bfloat16* __restrict__ recv,  // output, count elements",
        "    const __nv_bfloat16* const* peer_send,  // every rank's input by rank",
        "    __nv_bfloat16* const* peer_recv,  // every rank's output by rank",
        "    unsigned int* const* peer_flags,  // every rank's barrier flags by rank (256 words",
        "    long long count,  // shape dim", "    unsigned int call,  // 1 for the first call",
        "    int rank,  // this rank", "    int world_size  // ranks in the job"}) {
    EXPECT_NE(abi.find(line), std::string::npos) << line << "\n" << abi;
  }
  EXPECT_NE(abi.find("one launch per rank"), std::string::npos) << abi;
  EXPECT_EQ(abi.find("@triton.jit"), std::string::npos) << "no Triton ABI for a collective";
}

TEST(AbiView, TritonSignatureNamesPointersWithPtr) {
  const v1::KernelInfo k = KernelInfoOf(*kernels::FindOperation("softmax"));
  const std::string triton = RenderTritonSignature(k);
  EXPECT_NE(triton.find("@triton.jit\ndef softmax_kernel(\n    in_ptr,"), std::string::npos)
      << triton;
  EXPECT_NE(triton.find("out_ptr,"), std::string::npos) << triton;
}

TEST(AbiView, EveryOperationPrintsEveryArgumentInBothForms) {
  for (const kernels::Operation& op : kernels::Catalogue()) {
    SCOPED_TRACE(op.name);
    const v1::KernelInfo k = KernelInfoOf(op);
    ASSERT_GT(k.abi().arguments_size(), 0);
    const std::string abi = RenderAbi(k, v1::DTYPE_F32);
    for (const v1::AbiArgument& a : k.abi().arguments()) {
      EXPECT_NE(abi.find(" " + a.name()), std::string::npos) << a.name() << "\n" << abi;
    }
    EXPECT_NE(abi.find("CUDA C++:"), std::string::npos);
    // A collective's kernel (issue 30) is CUDA C++ only: Triton has no peer pointers.
    EXPECT_EQ(abi.find("Triton:") != std::string::npos, op.min_devices == 1);
  }
}

TEST(UserKernelFlags, SplitsExpressionsOutsideParentheses) {
  EXPECT_EQ(SplitExpressions({"cdiv(rows, 4),2"}),
            (std::vector<std::string>{"cdiv(rows, 4)", "2"}));
  EXPECT_EQ(SplitExpressions({"rows", "1"}), (std::vector<std::string>{"rows", "1"}));
}

}  // namespace
}  // namespace kbench::client
