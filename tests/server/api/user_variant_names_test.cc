// The name rule at submit (issue 24, item 2): a job's user kernels, the '@' variants it lists
// and a kernel registered as a variant are named '@' then 1 to 63 of [A-Za-z0-9_.-]; a hostile
// name is refused with INVALID_ARGUMENT naming the field and the rule, and the message does
// not carry the name's payload on.
#include <optional>

#include "absl/strings/match.h"
#include "common/user_variant_name.h"
#include "gtest/gtest.h"
#include "kernels/catalogue.h"
#include "server/api/registered_variants.h"
#include "server/api/submit_validation.h"
#include "server/api/user_kernel_validation.h"
#include "tests/hostile_names.h"

namespace kbench::api {
namespace {

v1::DeviceInfo Gpu() {
  v1::DeviceInfo d;
  d.set_id("cuda:0");
  d.set_kind(v1::DEVICE_KIND_CUDA);
  d.set_compute_capability("9.0");
  d.set_memory_bytes(int64_t{80} << 30);
  return d;
}

v1::DeviceInfo Cpu() {
  v1::DeviceInfo d;
  d.set_id("cpu");
  d.set_kind(v1::DEVICE_KIND_CPU);
  return d;
}

v1::JobSpec Softmax() {
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.add_shape(64);
  spec.add_shape(32);
  return spec;
}

std::vector<std::string> Refused() {
  std::vector<std::string> names = testing::HostileNames("/tmp/kbench-marker");
  for (const std::string& formula : testing::FormulaNames()) names.push_back(formula);
  for (const char* name : {"@", "@a b", "@a/b", "@é", "user"}) names.emplace_back(name);
  names.push_back("@" + std::string(64, 'a'));  // one past the limit
  return names;
}

// INVALID_ARGUMENT naming `field` and the rule, with none of the name's unsafe bytes.
void ExpectRefused(const absl::Status& status, const std::string& field, const std::string& name) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name << ": " << status;
  EXPECT_TRUE(absl::StartsWith(status.message(), field + ": ")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), kUserVariantNameRule)) << status;
  EXPECT_EQ(std::string(status.message()).find_first_of("`$;\"\n\r\x1b<>/\\"), std::string::npos)
      << status;
}

TEST(UserVariantName, FollowsTheRegisteredNameRule) {
  EXPECT_TRUE(IsWellFormedUserVariantName("@user"));
  EXPECT_TRUE(IsWellFormedUserVariantName("@my_kernel-v2.1"));
  EXPECT_TRUE(IsWellFormedUserVariantName("@" + std::string(63, 'a')));
  for (const std::string& name : Refused()) EXPECT_FALSE(IsWellFormedUserVariantName(name)) << name;
}

TEST(ValidateAndNormalize, RefusesAHostileUserKernelName) {
  for (const std::string& name : Refused()) {
    for (const v1::DeviceInfo& device : {Gpu(), Cpu()}) {  // alike where user kernels cannot run
      v1::JobSpec spec = Softmax();
      spec.add_user_kernels()->set_name(name);
      ExpectRefused(ValidateAndNormalize(device, {}, &spec), "user_kernels[0].name", name);
    }
  }
}

TEST(ValidateAndNormalize, RefusesAHostileUserVariantItLists) {
  for (const std::string& name : Refused()) {
    if (!kernels::IsUserVariantName(name)) continue;  // not a user variant: a catalogue lookup
    v1::JobSpec spec = Softmax();
    spec.add_variants(name);
    ExpectRefused(ValidateAndNormalize(Gpu(), {}, &spec), "variants", name);
  }
}

TEST(ValidateRegisteredKernel, RefusesAHostileName) {
  const kernels::Operation* op = kernels::FindOperation("softmax");
  ASSERT_NE(op, nullptr);
  for (const std::string& name : Refused()) {
    v1::UserKernel uk;
    uk.set_name(name);
    ExpectRefused(ValidateRegisteredKernel(*op, &uk), "kernel.name", name);
  }
}

// A store that answers every lookup with "none", counting them.
class EmptyVariantStore final : public store::VariantStore {
 public:
  absl::Status Add(const store::VariantRecord&) override { return absl::OkStatus(); }
  absl::StatusOr<std::optional<store::VariantRecord>> Get(const std::string&,
                                                          const std::string&) override {
    ++lookups;
    return std::nullopt;
  }
  absl::StatusOr<std::vector<store::VariantRecord>> List(const std::string&) override {
    return std::vector<store::VariantRecord>{};
  }
  absl::StatusOr<bool> Remove(const std::string&, const std::string&) override { return false; }
  absl::StatusOr<int64_t> CountOwnedBy(const std::string&) override { return 0; }
  int lookups = 0;
};

TEST(ResolveRegisteredVariants, RefusesAHostileNameBeforeAskingTheStore) {
  EmptyVariantStore store;
  for (const std::string& name : Refused()) {
    if (!kernels::IsUserVariantName(name)) continue;
    v1::JobSpec spec;
    spec.set_kernel("softmax");
    spec.add_variants(name);
    ExpectRefused(ResolveRegisteredVariants(store, &spec, nullptr), "variants", name);
  }
  EXPECT_EQ(store.lookups, 0);
  v1::JobSpec spec;
  spec.set_kernel("softmax");
  spec.add_variants("@registered_one");
  EXPECT_EQ(ResolveRegisteredVariants(store, &spec, nullptr).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.lookups, 1);
}

}  // namespace
}  // namespace kbench::api
