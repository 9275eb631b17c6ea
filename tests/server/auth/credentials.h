// Test credentials made for real: TLS certificates from the openssl CLI in a temporary
// directory, and tokens minted by `kbenchd token add`, so that the tests exercise the same
// commands an operator runs.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace kbench::testing {

// A CA, a server certificate for 127.0.0.1/localhost, a client certificate (CN `client_cn`)
// signed by the CA, and one signed by a second, untrusted CA; also, signed by the CA, one with
// CN `root` (an admin's name that no auth file lists) and one with CN `client_cn` but no
// extended key usage (not issued for client authentication). Paths under `dir`.
struct TestPki {
  std::string ca_cert;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string rogue_client_cert, rogue_client_key;
  std::string root_named_cert, root_named_key;
  std::string no_usage_client_cert, no_usage_client_key;
};
// Aborts the test (ADD_FAILURE, empty paths) when openssl fails.
TestPki MakeTestPki(const std::string& dir, const std::string& client_cn);

// Runs `kbenchd token add NAME [--role ROLE] --auth-file FILE`; returns the printed token, or ""
// after ADD_FAILURE.
std::string MintToken(const std::string& auth_file, const std::string& name,
                      const std::string& role = "");

std::string ReadFile(const std::string& path);

// Appends user `name` (role user, no token) whose client certificates are those with CN or SAN
// `certificate_name` to an auth file written by `kbenchd token add`.
void AddCertificateUser(const std::string& auth_file, const std::string& name,
                        const std::string& certificate_name);

// A channel to `address`: TLS trusting `ca_file` (and presenting a client certificate when
// given) or plaintext when ca_file is empty.
std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address, const std::string& ca_file,
                                         const std::string& client_cert = "",
                                         const std::string& client_key = "");

}  // namespace kbench::testing
