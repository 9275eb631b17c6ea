// Authentication when a call's headers arrive (see early_auth.h).
#include "server/api/early_auth.h"

#include <grpc/grpc_security.h>
#include <grpc/grpc_security_constants.h>
#include <grpc/slice.h>
#include <grpcpp/security/auth_context.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "server/api/status_mapping.h"
#include "server/auth/client_certificate.h"

namespace kbench::api {
namespace {

std::optional<absl::string_view> Find(const grpc::AuthMetadataProcessor::InputMetadata& metadata,
                                      absl::string_view key) {
  for (const auto& [k, v] : metadata) {
    if (absl::string_view(k.data(), k.size()) == key) return absl::string_view(v.data(), v.size());
  }
  return std::nullopt;
}

// gRPC core's plaintext credentials with a processor: grpc::InsecureServerCredentials() asserts
// on SetAuthMetadataProcessor, but core runs the server auth filter, and so the processor, on
// every port added with credentials, plaintext ones included.
class PlaintextCredentials final : public grpc::ServerCredentials {
 public:
  PlaintextCredentials() : core_(grpc_insecure_server_credentials_create()) {}
  ~PlaintextCredentials() override { grpc_server_credentials_release(core_); }

  void SetAuthMetadataProcessor(
      const std::shared_ptr<grpc::AuthMetadataProcessor>& processor) override {
    processor_ = processor;
    grpc_server_credentials_set_auth_metadata_processor(core_, {&Process, nullptr, this});
  }

 private:
  int AddPortToServer(const std::string& addr, grpc_server* server) override {
    return grpc_server_add_http2_port(server, addr.c_str(), core_);
  }

  // Core's callback: the call's headers in, a status out, synchronously (the processor never
  // blocks). A plaintext connection has no peer properties, hence no AuthContext.
  static void Process(void* state, grpc_auth_context* /*connection*/, const grpc_metadata* md,
                      size_t num_md, grpc_process_auth_metadata_done_cb done, void* user_data) {
    auto* self = static_cast<PlaintextCredentials*>(state);
    grpc::AuthMetadataProcessor::InputMetadata metadata;
    for (size_t i = 0; i < num_md; ++i) {
      metadata.emplace(
          grpc::string_ref(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].key)),
                           GRPC_SLICE_LENGTH(md[i].key)),
          grpc::string_ref(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].value)),
                           GRPC_SLICE_LENGTH(md[i].value)));
    }
    grpc::AuthMetadataProcessor::OutputMetadata consumed;
    grpc::AuthMetadataProcessor::OutputMetadata response;
    const grpc::Status status = self->processor_->Process(metadata, nullptr, &consumed, &response);
    done(user_data, nullptr, 0, nullptr, 0, static_cast<grpc_status_code>(status.error_code()),
         status.ok() ? nullptr : status.error_message().c_str());
  }

  grpc_server_credentials* const core_;
  std::shared_ptr<grpc::AuthMetadataProcessor> processor_;
};

}  // namespace

bool NeedsCredentials(absl::string_view path) { return absl::StartsWith(path, "/kbench."); }

grpc::Status EarlyAuthProcessor::Process(const InputMetadata& metadata, grpc::AuthContext* context,
                                         OutputMetadata* /*consumed*/,
                                         OutputMetadata* /*response*/) {
  // Without a path there is nothing to exempt: authenticate (fail closed).
  const std::optional<absl::string_view> path = Find(metadata, ":path");
  const bool kbench_call = !path || NeedsCredentials(*path);
  const absl::Status admitted =
      gate_->Admit(kbench_call ? auth::CallKind::kKbench : auth::CallKind::kOther);
  if (!admitted.ok()) return ToGrpcStatus(admitted);
  if (!kbench_call) return grpc::Status::OK;
  // Nothing is consumed: the handlers read the same header to learn who calls.
  auth::CallCredentials call;
  call.authorization = Find(metadata, "authorization");
  call.certificate = auth::ClientCertificateOf(context);
  const absl::StatusOr<auth::Identity> caller = authenticator_->Authenticate(call);
  return caller.ok() ? grpc::Status::OK : ToGrpcStatus(caller.status());
}

std::shared_ptr<grpc::ServerCredentials> AuthenticateBeforeReading(
    std::shared_ptr<grpc::ServerCredentials> credentials, bool tls,
    const auth::Authenticator* authenticator, const auth::CallGate* gate) {
  if (!tls) credentials = std::make_shared<PlaintextCredentials>();
  credentials->SetAuthMetadataProcessor(std::make_shared<EarlyAuthProcessor>(authenticator, gate));
  return credentials;
}

}  // namespace kbench::api
