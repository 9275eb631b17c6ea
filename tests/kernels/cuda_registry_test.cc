// The catalogue's metadata agrees with the CUDA launch list in both directions (no device
// needed: the list is only read). Built with KBENCH_CUDA only.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "kernels/catalogue.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::kernels {
namespace {

TEST(Catalogue, EveryCudaVariantInMetadataHasALaunchFunction) {
  for (const Operation& op : Catalogue()) {
    for (const VariantDesc& v : op.variants) {
      if (v.backend != Backend::kCuda) continue;
      const cuda::CudaVariant* cv = cuda::FindCudaVariant(op.name, v.name);
      ASSERT_NE(cv, nullptr) << op.name << "/" << v.name << " has no launch function";
      EXPECT_NE(cv->launch, nullptr) << op.name << "/" << v.name;
    }
  }
}

TEST(Catalogue, EveryLaunchFunctionIsACudaVariantInMetadata) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const cuda::CudaVariant& cv : cuda::CudaVariants()) {
    const Operation* op = FindOperation(cv.op);
    ASSERT_NE(op, nullptr) << cv.op;
    const VariantDesc* v = op->FindVariant(cv.variant);
    ASSERT_NE(v, nullptr) << cv.op << "/" << cv.variant << " is not in the metadata";
    EXPECT_EQ(v->backend, Backend::kCuda) << cv.op << "/" << cv.variant;
    EXPECT_TRUE(seen.insert({cv.op, cv.variant}).second)
        << cv.op << "/" << cv.variant << " listed twice";
  }
}

}  // namespace
}  // namespace kbench::kernels
