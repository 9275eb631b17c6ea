// Reading the peer's certificate from gRPC's auth context (see client_certificate.h).
#include "server/auth/client_certificate.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_context.h>
#include <grpcpp/server_context.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kbench::auth {

bool HasClientAuthUsage(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (bio == nullptr) return false;
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (cert == nullptr) return false;
  // X509_get_extension_flags computes the cached extensions; EXFLAG_XKUSAGE says an EKU exists.
  if ((X509_get_extension_flags(cert.get()) & EXFLAG_XKUSAGE) == 0) return false;
  return (X509_get_extended_key_usage(cert.get()) & XKU_SSL_CLIENT) != 0;
}

ClientCertificate ClientCertificateOf(const grpc::ServerContextBase& context) {
  return ClientCertificateOf(context.auth_context().get());
}

ClientCertificate ClientCertificateOf(const grpc::AuthContext* auth) {
  ClientCertificate certificate;
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return certificate;
  for (const char* property : {GRPC_X509_CN_PROPERTY_NAME, GRPC_X509_SAN_PROPERTY_NAME}) {
    for (const grpc::string_ref& v : auth->FindPropertyValues(property)) {
      certificate.names.emplace_back(v.data(), v.size());
    }
  }
  for (const grpc::string_ref& pem : auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME)) {
    certificate.client_auth = HasClientAuthUsage(std::string(pem.data(), pem.size()));
  }
  return certificate;
}

}  // namespace kbench::auth
