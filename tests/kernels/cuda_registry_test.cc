// The catalogue's metadata agrees with the CUDA variant tables in both directions, and every
// launcher sizes its workspace with the function the catalogue's Layout uses. No device needed:
// the tables are only read, and a launcher refuses a short workspace before touching the device.
// Built with KBENCH_CUDA only.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/catalogue.h"
#include "kernels/cuda/collectives.h"
#include "kernels/cuda/cuda_variants.h"

namespace kbench::kernels {
namespace {

TEST(Catalogue, EveryCudaVariantInMetadataHasALaunchFunction) {
  for (const Operation& op : Catalogue()) {
    if (op.min_devices > 1) continue;  // a gang's launchers: collective_variants.h
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

TEST(Catalogue, EveryCollectiveVariantInMetadataHasALauncher) {
  for (const Operation& op : Catalogue()) {
    if (op.min_devices == 1) continue;
    for (const VariantDesc& v : op.variants) {
      const cuda::CollectiveVariant* cv = cuda::FindCollectiveVariant(op.name, v.name);
      ASSERT_NE(cv, nullptr) << op.name << "/" << v.name << " has no launcher";
      EXPECT_NE(cv->launch, nullptr) << op.name << "/" << v.name;
      EXPECT_EQ(cuda::FindCudaVariant(op.name, v.name), nullptr)
          << op.name << "/" << v.name << " is a gang's, not one device's";
    }
  }
}

TEST(Catalogue, EveryCollectiveLauncherIsAVariantOfAMultiDeviceOperation) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const cuda::CollectiveVariant& cv : cuda::CollectiveVariants()) {
    const Operation* op = FindOperation(cv.op);
    ASSERT_NE(op, nullptr) << cv.op;
    EXPECT_GT(op->min_devices, 1) << cv.op;
    const VariantDesc* v = op->FindVariant(cv.variant);
    ASSERT_NE(v, nullptr) << cv.op << "/" << cv.variant << " is not in the metadata";
    EXPECT_EQ(v->backend, Backend::kCuda) << cv.op << "/" << cv.variant;
    EXPECT_TRUE(seen.insert({cv.op, cv.variant}).second)
        << cv.op << "/" << cv.variant << " listed twice";
  }
}

// Stands in for device memory that a launcher must not touch: it refuses first.
void* const kUntouched = reinterpret_cast<void*>(uintptr_t{1} << 20);

TEST(CudaVariants, RefuseAWorkspaceOneByteShorterThanTheCatalogueLayout) {
  int checked = 0;
  for (const Operation& op : Catalogue()) {
    if (op.min_devices > 1) continue;
    for (const VariantDesc& v : op.variants) {
      if (v.backend != Backend::kCuda) continue;
      Problem p;
      p.op = op.name;
      p.variant = v.name;
      p.dtype = v.dtypes.front();
      // matmul's default shape needs no padded copy; an odd k and n make tensorcore pad both.
      if (op.name == "matmul") p.shape = {33, 65, 17};
      ASSERT_TRUE(ValidateProblem(&p).ok()) << ValidateProblem(&p);
      const Layout layout = op.layout(p);
      if (layout.workspace_bytes == 0) continue;
      cuda::LaunchArgs args;
      args.inputs.assign(layout.inputs.size(), kUntouched);
      args.outputs.assign(layout.outputs.size(), kUntouched);
      args.cublas = kUntouched;
      args.workspace = kUntouched;
      args.workspace_bytes = static_cast<size_t>(layout.workspace_bytes) - 1;
      const absl::Status s = cuda::FindCudaVariant(p.op, p.variant)->launch(p, args);
      EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument)
          << op.name << "/" << v.name << ": " << s;
      EXPECT_NE(s.message().find("workspace"), absl::string_view::npos) << s;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << "no CUDA variant needs a workspace: the test checks nothing";
}

}  // namespace
}  // namespace kbench::kernels
