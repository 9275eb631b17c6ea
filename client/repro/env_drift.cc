// Environment drift by protobuf reflection.
#include "client/repro/env_drift.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace kbench::client {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Drawn or measured afresh by every run, so a difference says nothing about the conditions:
// the seeds and secrets, the clock readings before and after, the probed SM clock, the
// contention seen, whether a module came from the executor's cache.
const std::set<std::string>& PerRunFields() {
  static const auto* names = new std::set<std::string>{"seed",
                                                       "check_seed",
                                                       "timed_check_seed",
                                                       "sample_secret",
                                                       "before",
                                                       "after",
                                                       "estimated_sm_clock_mhz",
                                                       "contention",
                                                       "passed",
                                                       "unmet",
                                                       "cache_hit",
                                                       "resources",
                                                       "grid",
                                                       "block",
                                                       "dynamic_smem_bytes",
                                                       "sanitizer"};
  return *names;
}

// Durations, energies and powers are measurements of the run, whatever field
// holds them (fields added later included).
bool IsMeasurement(const std::string& name) {
  for (const char* suffix : {"_seconds", "_joules", "_watts"}) {
    if (absl::EndsWith(name, suffix)) return true;
  }
  return absl::StrContains(name, "energy");
}

std::string ValueText(const Message& m, const FieldDescriptor* f) {
  std::string text;
  std::vector<std::string> items;
  const Reflection* r = m.GetReflection();
  if (!f->is_repeated()) {
    google::protobuf::TextFormat::PrintFieldValueToString(m, f, -1, &text);
    return text;
  }
  for (int i = 0; i < r->FieldSize(m, f); ++i) {
    google::protobuf::TextFormat::PrintFieldValueToString(m, f, i, &text);
    items.push_back(text);
  }
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

void CompareFields(const Message& a, const Message& b, const std::string& prefix,
                   std::vector<Drift>* out) {
  const google::protobuf::Descriptor* d = a.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (PerRunFields().count(f->name()) > 0 || IsMeasurement(f->name())) continue;
    const std::string name = prefix + f->name();
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && !f->is_repeated()) {
      CompareFields(a.GetReflection()->GetMessage(a, f), b.GetReflection()->GetMessage(b, f),
                    name + ".", out);
      continue;
    }
    std::string old_value = ValueText(a, f);
    std::string new_value = ValueText(b, f);
    if (old_value != new_value) out->push_back({name, std::move(old_value), std::move(new_value)});
  }
}

const v1::VariantResult* FindReproVariant(const v1::JobResult& result, const std::string& name) {
  for (const v1::VariantResult& v : result.variants()) {
    if (v.variant() == name) return &v;
  }
  return nullptr;
}

}  // namespace

std::vector<Drift> EnvironmentDrift(const v1::JobResult& old_result,
                                    const v1::JobResult& new_result) {
  std::vector<Drift> drift;
  CompareFields(old_result.environment(), new_result.environment(), "", &drift);
  // A user variant's module: its sha256, compiler and options are conditions too.
  for (const v1::VariantResult& old_variant : old_result.variants()) {
    const v1::VariantResult* new_variant = FindReproVariant(new_result, old_variant.variant());
    if (new_variant == nullptr || !old_variant.has_user_module()) continue;
    CompareFields(old_variant.user_module(), new_variant->user_module(),
                  absl::StrCat("variants[", old_variant.variant(), "].user_module."), &drift);
  }
  return drift;
}

std::string RenderDrift(const std::vector<Drift>& drift) {
  if (drift.empty()) return "Environment: no field drifted\n";
  std::string text = "Environment drift:\n";
  for (const Drift& d : drift) {
    absl::StrAppend(&text, "  ", d.field, ": ", d.old_value, " -> ", d.new_value, "\n");
  }
  return text;
}

}  // namespace kbench::client
