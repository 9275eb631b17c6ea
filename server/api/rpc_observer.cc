// The interceptor that times and counts kbench.v1 calls (see rpc_observer.h).
#include "server/api/rpc_observer.h"

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/api/early_auth.h"
#include "server/common/logging.h"

namespace kbench::api {
namespace {

using Clock = std::chrono::steady_clock;
using grpc::experimental::InterceptionHookPoints;

class ObservedCall final : public grpc::experimental::Interceptor {
 public:
  ObservedCall(metrics::Metrics* metrics, std::string method)
      : metrics_(metrics), method_(std::move(method)), start_(Clock::now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      Observe(methods->GetSendStatus());
    }
    methods->Proceed();
  }

 private:
  void Observe(const grpc::Status& status) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    // gRPC's codes are absl's, number for number.
    const auto code = static_cast<absl::StatusCode>(status.error_code());
    metrics_->ObserveRpc(method_, absl::StatusCodeToString(code), seconds);
    if (!status.ok() && code != absl::StatusCode::kNotFound &&
        code != absl::StatusCode::kInvalidArgument) {
      logging::Log(logging::Level::kDebug, "rpc failed",
                   {logging::Field("method", method_),
                    logging::Field("error", absl::StrCat(absl::StatusCodeToString(code), ": ",
                                                         status.error_message()))});
    }
  }

  metrics::Metrics* const metrics_;
  const std::string method_;
  const Clock::time_point start_;
};

class CallObserving final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallObserving(metrics::Metrics* metrics) : metrics_(metrics) {}

  // Health and reflection are not kbench's calls, and are not counted.
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    if (info->method() == nullptr || !NeedsCredentials(info->method())) return nullptr;
    return new ObservedCall(metrics_, ShortMethodName(info->method()));
  }

 private:
  metrics::Metrics* const metrics_;
};

}  // namespace

std::string ShortMethodName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ObserveCallsInto(
    metrics::Metrics* metrics) {
  return std::make_unique<CallObserving>(metrics);
}

}  // namespace kbench::api
