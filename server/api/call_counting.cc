// The interceptor that counts kbench.v1 calls in flight (see call_counting.h).
#include "server/api/call_counting.h"

#include "absl/strings/match.h"
#include "server/api/early_auth.h"

namespace kbench::api {
namespace {

// Counted from construction to destruction, which gRPC ties to the call's life.
class CountedCall final : public grpc::experimental::Interceptor {
 public:
  explicit CountedCall(auth::CallGate* gate) : gate_(gate) { gate_->CallStarted(); }
  ~CountedCall() override { gate_->CallEnded(); }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }

 private:
  auth::CallGate* const gate_;
};

class CallCounting final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallCounting(auth::CallGate* gate) : gate_(gate) {}

  // Health and reflection are not counted: a health watch stays open until the server stops.
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (info->method() == nullptr || !NeedsCredentials(info->method())) return nullptr;
    return new CountedCall(gate_);
  }

 private:
  auth::CallGate* const gate_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> CountCallsInto(
    auth::CallGate* gate) {
  return std::make_unique<CallCounting>(gate);
}

}  // namespace kbench::api
