// The environment drift of kbctl repro: every field of kbench.v1.Environment is compared by
// reflection (a field added later included), per-run noise is not.
#include "client/repro/env_drift.h"

#include <string>

#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"

namespace kbench::client {
namespace {

using google::protobuf::FieldDescriptor;

bool Lists(const std::vector<Drift>& drift, const std::string& field) {
  for (const Drift& d : drift) {
    if (d.field == field) return true;
  }
  return false;
}

TEST(EnvironmentDrift, NamesAChangedDriverAsOldToNew) {
  v1::JobResult a, b;
  a.mutable_environment()->set_driver_version("580.65");
  b.mutable_environment()->set_driver_version("590.10");
  const std::vector<Drift> drift = EnvironmentDrift(a, b);
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].field, "driver_version");
  EXPECT_EQ(RenderDrift(drift), "Environment drift:\n  driver_version: \"580.65\" -> \"590.10\"\n");
}

TEST(EnvironmentDrift, LeavesSeedsSecretsAndMeasuredClocksOut) {
  v1::JobResult a, b;
  b.mutable_environment()->set_seed(7);
  b.mutable_environment()->set_sample_secret(9);
  b.mutable_environment()->mutable_before()->set_sm_clock_mhz(1980);
  b.mutable_environment()->set_estimated_sm_clock_mhz(1755);
  b.mutable_environment()->set_power_violation_seconds(0.5);
  EXPECT_TRUE(EnvironmentDrift(a, b).empty());
  EXPECT_EQ(RenderDrift({}), "Environment: no field drifted\n");
}

// Every scalar field of Environment that is not per-run noise shows when it changes, found by
// reflection: a field another change adds to the message is covered without touching the code.
TEST(EnvironmentDrift, CoversEveryScalarFieldByReflection) {
  const google::protobuf::Descriptor* d = v1::Environment::descriptor();
  int covered = 0;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated() || f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) continue;
    v1::JobResult a, b;
    const google::protobuf::Reflection* r = b.environment().GetReflection();
    google::protobuf::Message* env = b.mutable_environment();
    switch (f->cpp_type()) {
      case FieldDescriptor::CPPTYPE_STRING:
        r->SetString(env, f, "x");
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        r->SetBool(env, f, true);
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        r->SetInt32(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        r->SetInt64(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        r->SetUInt32(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        r->SetUInt64(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        r->SetDouble(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        r->SetFloat(env, f, 3);
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        r->SetEnumValue(env, f, 1);
        break;
      default:
        continue;
    }
    const bool noise = f->name().find("seed") != std::string::npos ||
                       f->name() == "sample_secret" || f->name() == "estimated_sm_clock_mhz" ||
                       f->name().ends_with("_seconds") || f->name().ends_with("_joules") ||
                       f->name().ends_with("_watts") ||
                       f->name().find("energy") != std::string::npos;
    EXPECT_EQ(Lists(EnvironmentDrift(a, b), f->name()), !noise) << f->name();
    ++covered;
  }
  EXPECT_GE(covered, 15);
}

TEST(EnvironmentDrift, NamesAUserVariantsModuleSha256) {
  v1::JobResult a, b;
  a.add_variants()->set_variant("@user");
  a.mutable_variants(0)->mutable_user_module()->set_module_sha256("aa");
  a.mutable_variants(0)->mutable_user_module()->set_cache_hit(false);
  *b.add_variants() = a.variants(0);
  b.mutable_variants(0)->mutable_user_module()->set_module_sha256("bb");
  b.mutable_variants(0)->mutable_user_module()->set_cache_hit(true);
  const std::vector<Drift> drift = EnvironmentDrift(a, b);
  ASSERT_EQ(drift.size(), 1u);
  EXPECT_EQ(drift[0].field, "variants[@user].user_module.module_sha256");
}

}  // namespace
}  // namespace kbench::client
