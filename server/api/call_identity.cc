// The table of callers and the interceptor that fills it (see call_identity.h).
#include "server/api/call_identity.h"

#include <grpcpp/server_context.h>

#include <string>
#include <utility>

#include "server/api/kbench_calls.h"
#include "server/api/rpc_observer.h"

namespace kbench::api {
namespace {

using grpc::experimental::InterceptionHookPoints;

// One call's authentication: when its headers have arrived (the token, the peer), before gRPC
// runs its handler; forgotten when the call ends (the interceptor ends with it).
class AuthenticatedCall final : public grpc::experimental::Interceptor {
 public:
  AuthenticatedCall(grpc::experimental::ServerRpcInfo* info, const auth::Authorizer* authorizer,
                    CallIdentities* callers)
      : info_(info),
        method_(ShortMethodName(info->method())),
        authorizer_(authorizer),
        callers_(callers) {}
  ~AuthenticatedCall() override {
    if (context_ != nullptr) callers_->Forget(context_, ticket_);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA) &&
        context_ == nullptr) {
      context_ = info_->server_context();
      ticket_ = callers_->Remember(context_, authorizer_->Authenticate(*context_, method_));
    }
    methods->Proceed();
  }

 private:
  grpc::experimental::ServerRpcInfo* const info_;
  const std::string method_;
  const auth::Authorizer* const authorizer_;
  CallIdentities* const callers_;
  const grpc::ServerContextBase* context_ = nullptr;
  uint64_t ticket_ = 0;
};

}  // namespace

absl::StatusOr<auth::Identity> CallIdentities::Of(const grpc::ServerContextBase& context) const {
  std::lock_guard lock(mu_);
  auto it = calls_.find(&context);
  if (it == calls_.end()) {
    return absl::InternalError(
        "this call was not authenticated (kbenchd's call authentication is not installed)");
  }
  return it->second.caller;
}

uint64_t CallIdentities::Remember(const grpc::ServerContextBase* context,
                                  absl::StatusOr<auth::Identity> caller) {
  std::lock_guard lock(mu_);
  const uint64_t ticket = ++next_ticket_;
  calls_.insert_or_assign(context, Entry{ticket, std::move(caller)});
  return ticket;
}

void CallIdentities::Forget(const grpc::ServerContextBase* context, uint64_t ticket) {
  std::lock_guard lock(mu_);
  auto it = calls_.find(context);
  if (it != calls_.end() && it->second.ticket == ticket) calls_.erase(it);
}

size_t CallIdentities::size() const {
  std::lock_guard lock(mu_);
  return calls_.size();
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> AuthenticateCallsInto(
    const auth::Authorizer* authorizer, CallIdentities* callers) {
  return ForKbenchCalls([authorizer, callers](grpc::experimental::ServerRpcInfo* info) {
    return new AuthenticatedCall(info, authorizer, callers);
  });
}

}  // namespace kbench::api
