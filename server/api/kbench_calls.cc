// The factory of kbench.v1 calls' interceptors (see kbench_calls.h).
#include "server/api/kbench_calls.h"

#include <utility>

#include "server/api/early_auth.h"

namespace kbench::api {
namespace {

class KbenchCallInterceptors final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit KbenchCallInterceptors(MakeCallInterceptor make) : make_(std::move(make)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (info->method() == nullptr || !NeedsCredentials(info->method())) return nullptr;
    return make_(info);
  }

 private:
  const MakeCallInterceptor make_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ForKbenchCalls(
    MakeCallInterceptor make) {
  return std::make_unique<KbenchCallInterceptors>(std::move(make));
}

}  // namespace kbench::api
