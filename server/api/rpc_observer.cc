// The interceptor that times and counts kbench.v1 calls (see rpc_observer.h).
#include "server/api/rpc_observer.h"

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/api/kbench_calls.h"
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

}  // namespace

std::string ShortMethodName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == absl::string_view::npos ? path : path.substr(slash + 1));
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> ObserveCallsInto(
    metrics::Metrics* metrics) {
  return ForKbenchCalls([metrics](grpc::experimental::ServerRpcInfo* info) {
    return new ObservedCall(metrics, ShortMethodName(info->method()));
  });
}

}  // namespace kbench::api
