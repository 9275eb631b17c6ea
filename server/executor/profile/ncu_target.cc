// The tool target mode's state and its spec file (the target itself:
// cuda/ncu_target_main.cc).
#include "server/executor/profile/ncu_target.h"

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/text_format.h"
#include "server/executor/backend.h"
#include "server/executor/profile/ncu_runner.h"

namespace kbench::executor {
namespace {

std::atomic<bool> g_ncu_target_mode{false};

}  // namespace

namespace profile {

bool InNcuTargetMode() { return g_ncu_target_mode.load(); }

void EnterNcuTargetMode() { g_ncu_target_mode.store(true); }

absl::Status WriteToolTargetSpec(const internal::v1::RunJob& job, const std::string& variant,
                                 int iterations, int device, const std::string& path) {
  internal::v1::RunJob target = job;
  v1::JobSpec* spec = target.mutable_spec();
  spec->set_kind(v1::JOB_KIND_PROFILE);
  spec->set_sanitize(false);
  spec->clear_variants();
  spec->add_variants(variant);
  spec->mutable_profile()->set_iterations(iterations);
  spec->mutable_profile()->set_ncu(false);
  spec->set_device(absl::StrCat("cuda:", device));
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(target, &text)) {
    return absl::InternalError("cannot print the ncu target's spec");
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace profile

}  // namespace kbench::executor
