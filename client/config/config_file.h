// kbctl's config file, like kubectl's kubeconfig: named contexts (server, token or token file,
// CA file, TLS) and the current one. YAML at $KBENCH_CONFIG, else
// ~/.config/kbench/config.yaml:
//
//   current-context: lab
//   contexts:
//     - name: lab
//       server: gpu1.lab:50051
//       ca-file: /etc/kbench/ca.pem     # implies TLS; `tls: true` alone uses the system store
//       token-file: ~/.config/kbench/lab.token   # or token: kbt_...
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kbench::client {

struct KbctlContext {
  std::string name;
  std::string server;
  std::string token;
  std::string token_file;
  std::string ca_file;
  bool tls = false;
};

struct KbctlConfig {
  std::string current_context;
  std::vector<KbctlContext> contexts;

  const KbctlContext* Find(const std::string& name) const;
  // Replaces the context of the same name, or appends it.
  void Put(KbctlContext context);
};

// $KBENCH_CONFIG, else $HOME/.config/kbench/config.yaml ("" when neither is set).
std::string ConfigPath(const std::optional<std::string>& kbench_config,
                       const std::optional<std::string>& home);
// A missing file is an empty config; a malformed one is INVALID_ARGUMENT naming the file.
absl::StatusOr<KbctlConfig> LoadConfig(const std::string& path);
// Writes atomically with mode 0600 (it may hold tokens), creating the directory (0700).
absl::Status SaveConfig(const std::string& path, const KbctlConfig& config);
// A warning for people when the file holds a token yet others may read it; "" when fine.
std::string PermissionWarning(const std::string& path, const KbctlConfig& config);

}  // namespace kbench::client
