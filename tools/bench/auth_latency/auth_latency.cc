// kbench-auth-latency: how long SubmitJob and GetJob take against a running kbenchd, as a
// client sees them (p50, p99, mean, max), over plaintext or TLS, with or without a token. Run
// by tools/bench/auth_latency/run.sh in each configuration; it prints what it measured and
// nothing else. Submitted jobs are tiny cpu benchmarks that queue and run meanwhile, as in use.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "kbench/v1/service.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string target = "127.0.0.1:50051";
  std::string ca_file;  // TLS when given
  std::string token;    // sent as a bearer token when given
  int requests = 500;
  int warmup = 50;
  std::string label;
};

std::shared_ptr<grpc::Channel> Connect(const Options& o) {
  if (o.ca_file.empty()) return grpc::CreateChannel(o.target, grpc::InsecureChannelCredentials());
  std::ifstream in(o.ca_file);
  std::stringstream ca;
  ca << in.rdbuf();
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = ca.str();
  return grpc::CreateChannel(o.target, grpc::SslCredentials(tls));
}

void Prepare(const Options& o, grpc::ClientContext* context) {
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  if (!o.token.empty()) context->AddMetadata("authorization", "Bearer " + o.token);
}

kbench::v1::JobSpec TinyCpuJob() {
  kbench::v1::JobSpec spec;
  spec.set_kernel("square");
  spec.add_variants("host_loop");
  spec.add_shape(16);
  spec.add_shape(16);
  spec.set_device("cpu");
  spec.mutable_stopping()->set_min_samples(1);
  spec.mutable_stopping()->set_min_time_seconds(0.001);
  spec.mutable_stopping()->set_max_noise(1.0);
  spec.mutable_stopping()->set_timeout_seconds(5);
  return spec;
}

double Percentile(std::vector<double> sorted, double p) {
  const size_t i = std::min(sorted.size() - 1, static_cast<size_t>(p * (sorted.size() - 1) + 0.5));
  return sorted[i];
}

// Times `call` `o.requests` times after `o.warmup` untimed calls; false on the first failure.
bool Measure(const Options& o, const char* method, const std::function<grpc::Status()>& call) {
  std::vector<double> ms;
  ms.reserve(o.requests);
  for (int i = 0; i < o.warmup + o.requests; ++i) {
    const auto start = Clock::now();
    const grpc::Status s = call();
    const double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!s.ok()) {
      std::fprintf(stderr, "kbench-auth-latency: %s failed: %s (%d)\n", method,
                   s.error_message().c_str(), static_cast<int>(s.error_code()));
      return false;
    }
    if (i >= o.warmup) ms.push_back(elapsed);
  }
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double v : ms) sum += v;
  std::printf("%-24s %-10s n=%-5zu p50=%8.3f ms  p99=%8.3f ms  mean=%8.3f ms  max=%8.3f ms\n",
              o.label.c_str(), method, ms.size(), Percentile(ms, 0.5), Percentile(ms, 0.99),
              sum / static_cast<double>(ms.size()), ms.back());
  return true;
}

int Run(const Options& o) {
  auto stub = kbench::v1::KbenchService::NewStub(Connect(o));
  std::string last_job;
  const bool submitted = Measure(o, "SubmitJob", [&] {
    grpc::ClientContext context;
    Prepare(o, &context);
    kbench::v1::SubmitJobRequest request;
    *request.mutable_spec() = TinyCpuJob();
    kbench::v1::SubmitJobResponse response;
    grpc::Status s = stub->SubmitJob(&context, request, &response);
    last_job = response.job().id();
    return s;
  });
  if (!submitted) return 1;
  const bool got = Measure(o, "GetJob", [&] {
    grpc::ClientContext context;
    Prepare(o, &context);
    kbench::v1::GetJobRequest request;
    request.set_job_id(last_job);
    kbench::v1::GetJobResponse response;
    return stub->GetJob(&context, request, &response);
  });
  return got ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"kbench-auth-latency: SubmitJob and GetJob latency against a running kbenchd"};
  app.add_option("--target", o.target, "kbenchd address HOST:PORT")->capture_default_str();
  app.add_option("--ca", o.ca_file, "CA certificate: connect with TLS (default: plaintext)");
  app.add_option("--token", o.token, "Bearer token to send (default: none)");
  app.add_option("--requests", o.requests, "Timed calls per method")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "Untimed calls first")->capture_default_str();
  app.add_option("--label", o.label, "Name of the configuration in the output");
  CLI11_PARSE(app, argc, argv);
  if (o.label.empty()) {
    o.label = absl::StrFormat("%s%s", o.ca_file.empty() ? "plaintext" : "tls",
                              o.token.empty() ? "" : "+token");
  }
  return Run(o);
}
