// The interceptor that counts kbench.v1 calls in flight (see call_counting.h).
#include "server/api/call_counting.h"

#include "server/api/kbench_calls.h"

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

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> CountCallsInto(
    auth::CallGate* gate) {
  return ForKbenchCalls(
      [gate](grpc::experimental::ServerRpcInfo*) { return new CountedCall(gate); });
}

}  // namespace kbench::api
