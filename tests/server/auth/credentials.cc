// openssl- and kbenchd-made credentials for the auth tests.
#include "tests/server/auth/credentials.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"

namespace kbench::testing {
namespace {

bool Run(const std::string& command) {
  const int rc = std::system(absl::StrCat(command, " >/dev/null 2>&1").c_str());
  if (rc != 0) ADD_FAILURE() << "failed (" << rc << "): " << command;
  return rc == 0;
}

// A key and a certificate for `subject` signed by ca (self-signed when ca is empty).
bool MakeCert(const std::string& dir, const std::string& name, const std::string& subject,
              const std::string& ca, const std::string& extensions) {
  const std::string key = absl::StrCat(dir, "/", name, ".key");
  const std::string cert = absl::StrCat(dir, "/", name, ".pem");
  if (ca.empty()) {
    return Run(absl::StrCat("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '", subject,
                            "' -keyout ", key, " -out ", cert));
  }
  const std::string csr = absl::StrCat(dir, "/", name, ".csr");
  const std::string ext = absl::StrCat(dir, "/", name, ".ext");
  std::ofstream(ext) << extensions << "\n";
  return Run(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj '", subject, "' -keyout ", key,
                          " -out ", csr)) &&
         Run(absl::StrCat("openssl x509 -req -days 2 -in ", csr, " -CA ", dir, "/", ca,
                          ".pem -CAkey ", dir, "/", ca, ".key -CAcreateserial -extfile ", ext,
                          " -out ", cert));
}

}  // namespace

TestPki MakeTestPki(const std::string& dir, const std::string& client_cn) {
  TestPki pki;
  const bool ok =
      MakeCert(dir, "ca", "/CN=kbench test CA", "", "") &&
      MakeCert(dir, "rogue_ca", "/CN=rogue CA", "", "") &&
      MakeCert(dir, "server", "/CN=localhost", "ca",
               "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth") &&
      MakeCert(dir, "client", "/CN=" + client_cn, "ca", "extendedKeyUsage=clientAuth") &&
      MakeCert(dir, "rogue_client", "/CN=" + client_cn, "rogue_ca",
               "extendedKeyUsage=clientAuth") &&
      MakeCert(dir, "root_named", "/CN=root", "ca", "extendedKeyUsage=clientAuth") &&
      MakeCert(dir, "no_usage_client", "/CN=" + client_cn, "ca", "basicConstraints=CA:FALSE");
  if (!ok) return pki;
  pki.ca_cert = dir + "/ca.pem";
  pki.server_cert = dir + "/server.pem";
  pki.server_key = dir + "/server.key";
  pki.client_cert = dir + "/client.pem";
  pki.client_key = dir + "/client.key";
  pki.rogue_client_cert = dir + "/rogue_client.pem";
  pki.rogue_client_key = dir + "/rogue_client.key";
  pki.root_named_cert = dir + "/root_named.pem";
  pki.root_named_key = dir + "/root_named.key";
  pki.no_usage_client_cert = dir + "/no_usage_client.pem";
  pki.no_usage_client_key = dir + "/no_usage_client.key";
  return pki;
}

std::string MintToken(const std::string& auth_file, const std::string& name,
                      const std::string& role) {
  const std::string command =
      absl::StrCat(KBENCHD_PATH, " token add ", name, role.empty() ? "" : " --role " + role,
                   " --auth-file ", auth_file, " 2>/dev/null");
  FILE* p = popen(command.c_str(), "r");
  std::string out;
  char buf[256];
  while (p != nullptr && std::fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  const int rc = p != nullptr ? pclose(p) : -1;
  if (rc != 0 || out.empty()) {
    ADD_FAILURE() << command << " failed: " << rc;
    return "";
  }
  return std::string(absl::StripSuffix(out, "\n"));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void AddCertificateUser(const std::string& auth_file, const std::string& name,
                        const std::string& certificate_name) {
  std::ofstream(auth_file, std::ios::app)
      << "  - name: " << name << "\n    role: user\n    certificate_names: [" << certificate_name
      << "]\n";
}

std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address, const std::string& ca_file,
                                         const std::string& client_cert,
                                         const std::string& client_key) {
  if (ca_file.empty()) return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadFile(ca_file);
  if (!client_cert.empty()) {
    options.pem_cert_chain = ReadFile(client_cert);
    options.pem_private_key = ReadFile(client_key);
  }
  return grpc::CreateChannel(address, grpc::SslCredentials(options));
}

}  // namespace kbench::testing
