// VariantService against real stores (service_fixture.h): a registration is stamped by the
// service's clock and bounded per owner; its code is its owner's to read and to remove.
#include "server/api/variant_service.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/server/api/service_fixture.h"

namespace kbench::api {
namespace {

class VariantServiceTest : public fixture::ServiceTest {
 protected:
  void SetUp() override {
    ServiceTest::SetUp();
    usage_ = std::make_unique<UsageService>(queue_.get(), stored_.get(), authorizer_.get(),
                                            QuotaDefaults{});
    service_ = std::make_unique<VariantService>(variants_.get(), usage_.get(), &clock_, 1);
  }

  static v1::AddVariantRequest Mine(const std::string& name) {
    v1::AddVariantRequest add;
    add.set_operation("square");
    v1::UserKernel* k = add.mutable_kernel();
    k->set_name(name);
    k->set_form(v1::USER_KERNEL_FORM_CUDA);
    k->set_code("extern \"C\" __global__ void sq(const float* x, float* y, long long n) {}");
    k->set_entry("sq");
    k->mutable_launch()->add_grid("cdiv(n, 256)");
    k->mutable_launch()->add_block("256");
    return add;
  }

  std::unique_ptr<UsageService> usage_;
  std::unique_ptr<VariantService> service_;
};

TEST_F(VariantServiceTest, RegistersAtItsClocksTimeForItsCallerWithinTheBound) {
  v1::AddVariantResponse added;
  const absl::Status s = service_->Add(alice_, Mine("@mine"), &added);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(added.variant().owner(), "alice");
  EXPECT_EQ(added.variant().create_time().seconds(), 1'700'000'000);
  const absl::Status full = service_->Add(alice_, Mine("@another"), &added);
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("--max-variants-per-owner"), std::string::npos) << full;
  EXPECT_TRUE(service_->Add(bob_, Mine("@bobs"), &added).ok());  // the bound is per owner
}

TEST_F(VariantServiceTest, ItsCodeIsItsOwnersToReadAndToRemove) {
  v1::AddVariantResponse added;
  ASSERT_TRUE(service_->Add(alice_, Mine("@mine"), &added).ok());
  v1::GetVariantRequest get;
  get.set_operation("square");
  get.set_name("@mine");
  v1::GetVariantResponse got;
  ASSERT_TRUE(service_->Get(bob_, get, &got).ok());  // its launch is the lab's to see
  EXPECT_TRUE(got.variant().kernel().code().empty());
  get.set_include_code(true);
  EXPECT_EQ(service_->Get(bob_, get, &got).code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(service_->Get(alice_, get, &got).ok());
  EXPECT_FALSE(got.variant().kernel().code().empty());

  v1::DeleteVariantRequest remove;
  remove.set_operation("square");
  remove.set_name("@mine");
  v1::DeleteVariantResponse removed;
  EXPECT_EQ(service_->Delete(bob_, remove, &removed).code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(service_->Delete(admin_, remove, &removed).ok());
  EXPECT_EQ(service_->Get(alice_, get, &got).code(), absl::StatusCode::kNotFound);
}

TEST_F(VariantServiceTest, WithoutAStoreEveryCallIsUnimplementedAndJobsAreLeftAlone) {
  service_ = std::make_unique<VariantService>(nullptr, usage_.get(), &clock_, 1);
  v1::AddVariantResponse added;
  EXPECT_EQ(service_->Add(alice_, Mine("@mine"), &added).code(), absl::StatusCode::kUnimplemented);
  v1::ListVariantsResponse listed;
  EXPECT_EQ(service_->List(alice_, v1::ListVariantsRequest(), &listed).code(),
            absl::StatusCode::kUnimplemented);
  v1::JobSpec spec = SquareOnCpu().spec();
  spec.add_variants("@mine");
  EXPECT_TRUE(service_->Resolve(&spec, nullptr).ok());  // validation refuses it later
}

}  // namespace
}  // namespace kbench::api
