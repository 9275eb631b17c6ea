// JSON to YAML through nlohmann::json and yaml-cpp's emitter.
#include "client/format/yaml.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace kbench::client {
namespace {

// Would YAML 1.2's core schema (or 1.1's, which many readers still use) read `s` as something
// other than a string?
bool ReadsAsNonString(const std::string& s) {
  if (s.empty()) return true;
  double number = 0;
  if (absl::SimpleAtod(s, &number)) return true;
  const std::string lower = absl::AsciiStrToLower(s);
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".nan",
                           ".inf", "-.inf", "+.inf"}) {
    if (lower == word) return true;
  }
  return false;
}

void Emit(YAML::Emitter& out, const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      if (j.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (const auto& [key, value] : j.items()) {
        out << YAML::Key;
        if (ReadsAsNonString(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        Emit(out, value);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::json::value_t::array:
      if (j.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const nlohmann::json& item : j) Emit(out, item);
      out << YAML::EndSeq;
      return;
    case nlohmann::json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      if (ReadsAsNonString(s)) out << YAML::DoubleQuoted;
      out << s;
      return;
    }
    case nlohmann::json::value_t::boolean:
      out << j.get<bool>();
      return;
    case nlohmann::json::value_t::number_integer:
      out << j.get<int64_t>();
      return;
    case nlohmann::json::value_t::number_unsigned:
      out << j.get<uint64_t>();
      return;
    case nlohmann::json::value_t::number_float:
      out << j.get<double>();
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

absl::StatusOr<std::string> JsonToYaml(const std::string& json) {
  const nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return absl::InvalidArgumentError("the output to convert to YAML is not one JSON document");
  }
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  Emit(out, doc);
  if (!out.good()) return absl::InternalError(absl::StrCat("YAML: ", out.GetLastError()));
  return absl::StrCat(out.c_str(), "\n");
}

}  // namespace kbench::client
