// Reading and writing kbctl's config file with yaml-cpp (exceptions caught here).
#include "client/config/config_file.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace kbench::client {
namespace {

std::string Text(const YAML::Node& node, const char* key) {
  return node[key] ? node[key].as<std::string>() : std::string();
}

absl::StatusOr<KbctlConfig> Parse(const YAML::Node& root, const std::string& path) {
  KbctlConfig config;
  if (root.IsNull()) return config;
  if (!root.IsMap() || (root["contexts"] && !root["contexts"].IsSequence())) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected a map with 'current-context' and a list 'contexts'"));
  }
  config.current_context = Text(root, "current-context");
  for (const YAML::Node& node : root["contexts"]) {
    KbctlContext c;
    c.name = Text(node, "name");
    if (c.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": a context has no name"));
    }
    c.server = Text(node, "server");
    c.token = Text(node, "token");
    c.token_file = Text(node, "token-file");
    c.ca_file = Text(node, "ca-file");
    c.tls = node["tls"] && node["tls"].as<bool>();
    config.contexts.push_back(std::move(c));
  }
  return config;
}

}  // namespace

const KbctlContext* KbctlConfig::Find(const std::string& name) const {
  for (const KbctlContext& c : contexts) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void KbctlConfig::Put(KbctlContext context) {
  for (KbctlContext& c : contexts) {
    if (c.name == context.name) {
      c = std::move(context);
      return;
    }
  }
  contexts.push_back(std::move(context));
}

std::string ConfigPath(const std::optional<std::string>& kbench_config,
                       const std::optional<std::string>& home) {
  if (kbench_config && !kbench_config->empty()) return *kbench_config;
  if (home && !home->empty()) return absl::StrCat(*home, "/.config/kbench/config.yaml");
  return "";
}

absl::StatusOr<KbctlConfig> LoadConfig(const std::string& path) {
  std::ifstream in(path);
  if (path.empty() || !in) return KbctlConfig{};
  try {
    return Parse(YAML::Load(in), path);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", e.what()));
  }
}

absl::Status SaveConfig(const std::string& path, const KbctlConfig& config) {
  if (path.empty()) {
    return absl::FailedPreconditionError("no config file: set $KBENCH_CONFIG or $HOME");
  }
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "current-context" << YAML::Value << config.current_context;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq;
  for (const KbctlContext& c : config.contexts) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << c.name;
    const std::pair<const char*, const std::string*> fields[] = {{"server", &c.server},
                                                                 {"token", &c.token},
                                                                 {"token-file", &c.token_file},
                                                                 {"ca-file", &c.ca_file}};
    for (const auto& [key, value] : fields) {
      if (!value->empty()) out << YAML::Key << key << YAML::Value << *value;
    }
    if (c.tls) out << YAML::Key << "tls" << YAML::Value << true;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  const std::filesystem::path file(path);
  std::error_code ec;
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), ec);
    chmod(file.parent_path().c_str(), 0700);
  }
  const std::string tmp = path + ".tmp";
  const mode_t old = umask(077);
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << out.c_str() << "\n";
    if (!f.flush()) {
      umask(old);
      return absl::InternalError(absl::StrCat("cannot write ", tmp));
    }
  }
  umask(old);
  std::filesystem::rename(tmp, path, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot replace ", path, ": ", ec.message()));
  return absl::OkStatus();
}

std::string PermissionWarning(const std::string& path, const KbctlConfig& config) {
  bool holds_token = false;
  for (const KbctlContext& c : config.contexts) holds_token |= !c.token.empty();
  struct stat st {};
  if (!holds_token || stat(path.c_str(), &st) != 0 || (st.st_mode & 0044) == 0) return "";
  return absl::StrFormat(
      "kbctl: warning: %s holds a token and is readable by others (mode %03o); run chmod 600 %s",
      path, st.st_mode & 0777, path);
}

}  // namespace kbench::client
