// CPU test of the GPU test's coverage: an operation with CUDA variants but no odd shapes listed
// would silently go untested on the device. Needs no device, so it carries no `gpu` label.
#include "tests/kernels/odd_shapes.h"

#include <gtest/gtest.h>

#include "kernels/catalogue.h"

namespace kbench::kernels {
namespace {

TEST(OddShapes, CoverEveryOperationWithCudaVariants) {
  for (const Operation& op : Catalogue()) {
    // Collectives' odd counts (1, 3, 1000003) are tests/gpu/collectives_gpu_test.cc's.
    if (op.min_devices > 1) continue;
    for (const VariantDesc& v : op.variants) {
      if (v.backend == Backend::kCuda) {
        EXPECT_FALSE(OddShapes(op.name, v.name).empty()) << op.name << " has no odd shapes";
      }
    }
  }
}

TEST(OddShapes, NoneForAnOperationNotListed) {
  EXPECT_TRUE(OddShapes("not_an_operation", "naive").empty());
}

}  // namespace
}  // namespace kbench::kernels
