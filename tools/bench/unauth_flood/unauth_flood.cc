// kbench-unauth-flood: how much memory a running kbenchd takes while N callers send large
// requests at once (issue 24, item 4: 32 unauthenticated 35 MiB SubmitJobs). Each caller has its
// own connection, as separate attackers would; kbenchd's VmRSS is sampled every few ms during
// the flood and its VmHWM read before and after, from /proc/PID/status. Prints one line per
// status code seen and the memory figures, in MiB.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "kbench/v1/service.grpc.pb.h"

namespace {

struct Options {
  std::string target = "127.0.0.1:50051";
  int pid = 0;          // kbenchd's, for /proc/PID/status
  std::string token;    // empty: no authorization header
  std::string ca_file;  // TLS trusting it when given, else plaintext
  std::string method = "SubmitJob";
  int callers = 32;
  int64_t request_bytes = int64_t{35} << 20;
  int deadline_seconds = 60;
};

struct Memory {
  int64_t rss_kib = 0;
  int64_t hwm_kib = 0;
};

// VmRSS and VmHWM of `pid`, in KiB (0 when unreadable).
Memory ReadMemory(int pid) {
  Memory m;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") in >> m.rss_kib;
    if (key == "VmHWM:") in >> m.hwm_kib;
    in.ignore(1 << 12, '\n');
  }
  return m;
}

std::shared_ptr<grpc::ChannelCredentials> CredentialsFor(const Options& o) {
  if (o.ca_file.empty()) return grpc::InsecureChannelCredentials();
  std::ifstream in(o.ca_file);
  std::stringstream ca;
  ca << in.rdbuf();
  grpc::SslCredentialsOptions tls;
  tls.pem_root_certs = ca.str();
  return grpc::SslCredentials(tls);
}

double MiB(int64_t kib) { return static_cast<double>(kib) / 1024.0; }

// A request of about `bytes`: a user kernel whose code is that long (SubmitJob, AddVariant), or
// a job id that long (GetJob), so that every method can be flooded with the same size.
grpc::Status Call(const Options& o, kbench::v1::KbenchService::Stub& stub,
                  grpc::ClientContext* context) {
  std::string payload(static_cast<size_t>(o.request_bytes), 'x');
  if (o.method == "GetJob") {
    kbench::v1::GetJobRequest request;
    request.set_job_id(std::move(payload));
    kbench::v1::GetJobResponse response;
    return stub.GetJob(context, request, &response);
  }
  kbench::v1::UserKernel kernel;
  kernel.set_name("@flood");
  kernel.set_form(kbench::v1::USER_KERNEL_FORM_CUBIN);
  kernel.set_entry("flood");
  kernel.set_code(std::move(payload));
  if (o.method == "AddVariant") {
    kbench::v1::AddVariantRequest request;
    request.set_operation("softmax");
    *request.mutable_kernel() = std::move(kernel);
    kbench::v1::AddVariantResponse response;
    return stub.AddVariant(context, request, &response);
  }
  kbench::v1::SubmitJobRequest request;
  request.mutable_spec()->set_kernel("softmax");
  request.mutable_spec()->set_device("cpu");
  *request.mutable_spec()->add_user_kernels() = std::move(kernel);
  kbench::v1::SubmitJobResponse response;
  return stub.SubmitJob(context, request, &response);
}

// Runs the callers, all released at once; returns how many ended with each status.
std::map<std::string, int> Flood(const Options& o) {
  std::mutex mu;
  std::map<std::string, int> outcomes;
  std::atomic<int> ready{0};
  std::vector<std::thread> callers;
  for (int i = 0; i < o.callers; ++i) {
    callers.emplace_back([&, i] {
      grpc::ChannelArguments args;
      args.SetInt("kbench.flood.caller", i);  // a connection of its own
      args.SetMaxSendMessageSize(-1);
      auto channel = grpc::CreateCustomChannel(o.target, CredentialsFor(o), args);
      auto stub = kbench::v1::KbenchService::NewStub(channel);
      channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10));
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(o.deadline_seconds));
      if (!o.token.empty()) context.AddMetadata("authorization", "Bearer " + o.token);
      ready.fetch_add(1);
      while (ready.load() < o.callers) std::this_thread::yield();
      const grpc::Status s = Call(o, *stub, &context);
      std::lock_guard<std::mutex> lock(mu);
      ++outcomes[absl::StrFormat("%d %s", static_cast<int>(s.error_code()),
                                 s.error_message().substr(0, 120))];
    });
  }
  for (std::thread& t : callers) t.join();
  return outcomes;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"kbenchd's memory under a flood of large requests"};
  app.add_option("--target", o.target, "kbenchd's address")->capture_default_str();
  app.add_option("--pid", o.pid, "kbenchd's process id")->required();
  app.add_option("--token", o.token, "Bearer token to send (none: no authorization header)");
  app.add_option("--ca-file", o.ca_file, "TLS, trusting this CA (default: plaintext)");
  app.add_option("--method", o.method, "SubmitJob, AddVariant or GetJob")->capture_default_str();
  app.add_option("--callers", o.callers, "Concurrent callers, each on its own connection")
      ->capture_default_str();
  app.add_option("--request-bytes", o.request_bytes, "Size of each request")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  const Memory before = ReadMemory(o.pid);
  std::atomic<bool> done{false};
  std::atomic<int64_t> peak_rss{before.rss_kib};
  std::thread sampler([&] {
    while (!done.load()) {
      const int64_t rss = ReadMemory(o.pid).rss_kib;
      if (rss > peak_rss.load()) peak_rss.store(rss);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const auto start = std::chrono::steady_clock::now();
  const std::map<std::string, int> outcomes = Flood(o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  done.store(true);
  sampler.join();
  const Memory after = ReadMemory(o.pid);

  for (const auto& [status, count] : outcomes)
    std::printf("%3d x status %s\n", count, status.c_str());
  std::printf("callers=%d method=%s request=%.1f MiB seconds=%.2f\n", o.callers, o.method.c_str(),
              MiB(o.request_bytes / 1024), seconds);
  std::printf("rss_before=%.1f MiB peak_rss=%.1f MiB (+%.1f) rss_after=%.1f MiB\n",
              MiB(before.rss_kib), MiB(peak_rss.load()), MiB(peak_rss.load() - before.rss_kib),
              MiB(after.rss_kib));
  std::printf("hwm_before=%.1f MiB hwm_after=%.1f MiB (+%.1f over rss_before)\n",
              MiB(before.hwm_kib), MiB(after.hwm_kib), MiB(after.hwm_kib - before.rss_kib));
  return 0;
}
