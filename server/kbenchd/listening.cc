// Starting kbenchd's gRPC server on TCP or on its Unix socket (see listening.h).
#include "server/kbenchd/listening.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "server/api/call_counting.h"
#include "server/api/call_identity.h"
#include "server/api/rpc_observer.h"

namespace kbench {

absl::StatusOr<Listening> StartServer(const Endpoint& endpoint,
                                      std::shared_ptr<grpc::ServerCredentials> credentials,
                                      auth::UnixPeers* unix_peers, const api::ApiOptions& api,
                                      grpc::Service* service, const CallHooks& hooks) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  api::ConfigureServerBuilder(api, &builder);
  // What every kbench.v1 call goes through once, before and after its handler.
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(api::CountCallsInto(hooks.gate));
  interceptors.push_back(api::ObserveCallsInto(hooks.metrics));
  interceptors.push_back(api::AuthenticateCallsInto(hooks.authorizer, hooks.callers));
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  Listening listening;
  int port = 0;
  if (!endpoint.unix_socket.empty()) {
    // Bound before the server starts: a socket that cannot be served stops kbenchd here.
    KBENCH_ASSIGN_OR_RETURN(listening.unix_socket,
                            auth::UnixSocketListener::Bind(endpoint.unix_socket,
                                                           endpoint.unix_socket_group, unix_peers));
    listening.address = absl::StrCat("unix:", endpoint.unix_socket);
  } else {
    listening.credentials = credentials;
    builder.AddListeningPort(endpoint.listen, std::move(credentials), &port);
  }
  builder.RegisterService(service);
  listening.server = builder.BuildAndStart();
  if (listening.server == nullptr || (listening.unix_socket == nullptr && port == 0)) {
    return absl::UnavailableError(
        absl::StrCat("--listen ", endpoint.listen, ": cannot listen there"));
  }
  if (listening.unix_socket != nullptr) {
    listening.unix_socket->Start(listening.server.get());
  } else {
    listening.address =
        absl::StrCat(endpoint.listen.substr(0, endpoint.listen.rfind(':')), ":", port);
  }
  return listening;
}

}  // namespace kbench
