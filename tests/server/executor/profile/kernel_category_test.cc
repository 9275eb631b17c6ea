// The kernel classification rule and the demangler behind the summary's names.
#include "server/executor/profile/kernel_category.h"

#include "gtest/gtest.h"
#include "server/executor/profile/demangle.h"

namespace kbench::executor::profile {
namespace {

TEST(Demangle, TurnsAMangledKernelNameIntoItsSignature) {
  EXPECT_EQ(Demangle("_ZN6kbench18SoftmaxFusedKernelILi256EEEvPKfPfii"),
            "void kbench::SoftmaxFusedKernel<256>(float const*, float*, int, int)");
}

TEST(Demangle, LeavesUnmangledNamesAlone) {
  EXPECT_EQ(Demangle("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(Demangle("i"), "i");  // __cxa_demangle would say "int"
  EXPECT_EQ(Demangle("_Znot a name"), "_Znot a name");
}

TEST(KernelBaseName, DropsScopeTemplateArgumentsAndParameters) {
  EXPECT_EQ(KernelBaseName("void kbench::kernels::cuda::(anonymous namespace)::SoftmaxFused<float, "
                           "256>(float const*, float*, long)"),
            "SoftmaxFused");
  EXPECT_EQ(KernelBaseName("void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::AddFunctor<float>, std::array<char*, 3ul> >(int, "
                           "at::native::AddFunctor<float>, std::array<char*, 3ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(KernelBaseName("sm90_xmma_gemm_f32f32"), "sm90_xmma_gemm_f32f32");
}

TEST(KernelNameWords, SplitsCamelCaseUnderscoresAndDigits) {
  EXPECT_EQ(KernelNameWords("kbench::SoftmaxRowMaxKernel(float const*)"),
            (std::vector<std::string>{"softmax", "row", "max", "kernel"}));
  EXPECT_EQ(KernelNameWords("GEMMKernel2D"), (std::vector<std::string>{"gemm", "kernel", "d"}));
  EXPECT_EQ(KernelNameWords("triton_red_fused_sum_1"),
            (std::vector<std::string>{"triton", "red", "fused", "sum"}));
}

TEST(CategorizeKernel, UsesInductorPrefixesFirst) {
  EXPECT_EQ(CategorizeKernel("softmax", "triton_poi_fused_exp_sub_0"), kCategoryPointwise);
  EXPECT_EQ(CategorizeKernel("add", "triton_red_fused_sum_1"), kCategoryReduction);
  EXPECT_EQ(CategorizeKernel("add", "triton_per_fused_softmax_2"), kCategoryReduction);
  EXPECT_EQ(CategorizeKernel("add", "triton_tem_fused_mm_3"), kCategoryGemm);
}

TEST(CategorizeKernel, RecognisesLibraryGemmKernels) {
  EXPECT_EQ(CategorizeKernel("matmul", "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x32"),
            kCategoryGemm);
  EXPECT_EQ(CategorizeKernel("matmul", "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT"), kCategoryGemm);
  EXPECT_EQ(
      CategorizeKernel("other", "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm>(Params)"),
      kCategoryGemm);
  EXPECT_EQ(CategorizeKernel("mlp", "void kbench::TiledMatmulKernel<64>(float const*)"),
            kCategoryGemm);
}

TEST(CategorizeKernel, SplitsTheStepsOfANaiveSoftmax) {
  EXPECT_EQ(
      CategorizeKernel("softmax", "kbench::SoftmaxRowMaxKernel(float const*, float*, int, int)"),
      kCategoryReduction);
  EXPECT_EQ(
      CategorizeKernel("softmax", "kbench::SoftmaxRowSumKernel(float const*, float*, int, int)"),
      kCategoryReduction);
  EXPECT_EQ(
      CategorizeKernel("softmax", "kbench::SoftmaxSubtractKernel(float const*, float*, int, int)"),
      kCategoryPointwise);
  EXPECT_EQ(CategorizeKernel("softmax", "kbench::SoftmaxExpKernel(float*, int)"),
            kCategoryPointwise);
  EXPECT_EQ(CategorizeKernel("softmax", "void kbench::SoftmaxFusedKernel<256>(float const*)"),
            kCategoryReduction);
}

TEST(CategorizeKernel, PutsCopyAndFillKernelsWithCopies) {
  EXPECT_EQ(CategorizeKernel("copy", "void kbench::CopyVectorizedKernel<float4>(float4 const*)"),
            kCategoryCopy);
  EXPECT_EQ(CategorizeKernel("gelu", "void kbench::FillPoison(float*, long)"), kCategoryCopy);
}

TEST(CategorizeKernel, FallsBackOnTheCatalogueOperation) {
  EXPECT_EQ(CategorizeKernel("gelu", "void kbench::GeluTanhKernel(float const*)"),
            kCategoryPointwise);
  EXPECT_EQ(CategorizeKernel("gelu", "void kbench::Kernel1(float const*)"), kCategoryPointwise);
  EXPECT_EQ(CategorizeKernel("softmax", "void kbench::WarpPerRow(float const*)"),
            kCategoryReduction);
  EXPECT_EQ(CategorizeKernel("layernorm", "void kbench::Kernel1(float const*)"),
            kCategoryReduction);
  EXPECT_EQ(CategorizeKernel("copy", "void kbench::Kernel1(float const*)"), kCategoryCopy);
  EXPECT_EQ(CategorizeKernel("unknown_op", "void kbench::Kernel1(float const*)"), kCategoryOther);
}

}  // namespace
}  // namespace kbench::executor::profile
