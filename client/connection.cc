// kbctl's gRPC calls. Unary calls carry the --timeout deadline; streams have none because a
// benchmark may queue and run for minutes, and the server ends them at the job's terminal state.
#include "client/connection.h"

#include <fstream>
#include <future>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "client/errors.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace kbench::client {
namespace {

// A list of 1000 jobs with their results is larger than gRPC's 4 MiB default.
constexpr int kMaxReceiveBytes = 256 << 20;
constexpr char kHealthCheckMethod[] = "/grpc.health.v1.Health/Check";

std::shared_ptr<grpc::ChannelCredentials> CredentialsFor(const ConnectionSecurity& security) {
  if (!security.tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  if (!security.ca_file.empty()) {
    // Readability was checked when the flags were resolved; an empty read fails the handshake.
    std::stringstream pem;
    pem << std::ifstream(security.ca_file).rdbuf();
    options.pem_root_certs = pem.str();
  }
  return grpc::SslCredentials(options);
}

}  // namespace

Connection::Connection(const std::string& server, absl::Duration timeout,
                       const ConnectionSecurity& security)
    : server_(server), timeout_(timeout), token_(security.token) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  args.SetUserAgentPrefix(absl::StrCat("kbctl/", KBENCH_VERSION));
  // A submit retried across a restart (submit_retry.h) must find the channel trying to connect
  // again, not failing at once while it waits out gRPC's own back-off (1 s, growing 1.6x).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  channel_ = grpc::CreateCustomChannel(server_, CredentialsFor(security), args);
  stub_ = v1::KbenchService::NewStub(channel_);
}

std::unique_ptr<grpc::ClientContext> Connection::UnaryContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  Authorize(context.get());
  return context;
}

void Connection::Authorize(grpc::ClientContext* context) const {
  // Plain metadata rather than gRPC's call credentials, which refuse plaintext channels: the
  // loopback port with an auth file has no TLS (ResolveConnection refuses any other address).
  if (!token_.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
}

absl::Status Connection::Check(const grpc::Status& status) const {
  if (status.ok()) return absl::OkStatus();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    return FromGrpc(grpc::Status(status.error_code(),
                                 absl::StrCat(status.error_message(), " (is kbenchd listening on ",
                                              server_, "? set --server or KBENCH_SERVER)")));
  }
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return FromGrpc(
        grpc::Status(status.error_code(),
                     absl::StrCat(status.error_message(), " (no answer from ", server_,
                                  " within --timeout ", absl::FormatDuration(timeout_), ")")));
  }
  return FromGrpc(status);
}

absl::StatusOr<v1::ListKernelsResponse> Connection::ListKernels() {
  v1::ListKernelsResponse response;
  const grpc::Status s = stub_->ListKernels(UnaryContext().get(), {}, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListDevicesResponse> Connection::ListDevices() {
  v1::ListDevicesResponse response;
  const grpc::Status s = stub_->ListDevices(UnaryContext().get(), {}, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListNodesResponse> Connection::ListNodes() {
  v1::ListNodesResponse response;
  const grpc::Status s = stub_->ListNodes(UnaryContext().get(), {}, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::GetUsageResponse> Connection::GetUsage(const v1::GetUsageRequest& request) {
  v1::GetUsageResponse response;
  const grpc::Status s = stub_->GetUsage(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::SubmitJobResponse> Connection::SubmitJob(const v1::SubmitJobRequest& request) {
  v1::SubmitJobResponse response;
  const grpc::Status s = stub_->SubmitJob(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::Job> Connection::GetJob(const std::string& job_id, bool include_code) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  request.set_include_code(include_code);
  v1::GetJobResponse response;
  const grpc::Status s = stub_->GetJob(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return std::move(*response.mutable_job());
}

absl::StatusOr<v1::Job> Connection::CancelJob(const std::string& job_id) {
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  v1::CancelJobResponse response;
  const grpc::Status s = stub_->CancelJob(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return std::move(*response.mutable_job());
}

absl::StatusOr<v1::DeleteJobResponse> Connection::DeleteJob(const std::string& job_id) {
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  v1::DeleteJobResponse response;
  const grpc::Status s = stub_->DeleteJob(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::SubmitSweepResponse> Connection::SubmitSweep(
    const v1::SubmitSweepRequest& request) {
  v1::SubmitSweepResponse response;
  const grpc::Status s = stub_->SubmitSweep(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::GetSweepResponse> Connection::GetSweep(const std::string& sweep_id,
                                                          bool with_jobs) {
  v1::GetSweepRequest request;
  request.set_sweep_id(sweep_id);
  request.set_with_jobs(with_jobs);
  v1::GetSweepResponse response;
  const grpc::Status s = stub_->GetSweep(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::CancelSweepResponse> Connection::CancelSweep(const std::string& sweep_id) {
  v1::CancelSweepRequest request;
  request.set_sweep_id(sweep_id);
  v1::CancelSweepResponse response;
  const grpc::Status s = stub_->CancelSweep(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::DeleteSweepResponse> Connection::DeleteSweep(const std::string& sweep_id) {
  v1::DeleteSweepRequest request;
  request.set_sweep_id(sweep_id);
  v1::DeleteSweepResponse response;
  const grpc::Status s = stub_->DeleteSweep(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListSweepsResponse> Connection::ListSweeps(int32_t page_size) {
  v1::ListSweepsRequest request;
  request.set_page_size(page_size);
  v1::ListSweepsResponse response;
  const grpc::Status s = stub_->ListSweeps(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListJobsResponse> Connection::ListJobs(const v1::ListJobsRequest& request) {
  v1::ListJobsResponse response;
  const grpc::Status s = stub_->ListJobs(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListHistoryResponse> Connection::ListHistory(
    const v1::ListHistoryRequest& request) {
  v1::ListHistoryResponse response;
  const grpc::Status s = stub_->ListHistory(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::GetLeaderboardResponse> Connection::GetLeaderboard(
    const v1::GetLeaderboardRequest& request) {
  v1::GetLeaderboardResponse response;
  const grpc::Status s = stub_->GetLeaderboard(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::AddVariantResponse> Connection::AddVariant(
    const v1::AddVariantRequest& request) {
  v1::AddVariantResponse response;
  const grpc::Status s = stub_->AddVariant(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::GetVariantResponse> Connection::GetVariant(
    const v1::GetVariantRequest& request) {
  v1::GetVariantResponse response;
  const grpc::Status s = stub_->GetVariant(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::StatusOr<v1::ListVariantsResponse> Connection::ListVariants(
    const v1::ListVariantsRequest& request) {
  v1::ListVariantsResponse response;
  const grpc::Status s = stub_->ListVariants(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return response;
}

absl::Status Connection::DeleteVariant(const v1::DeleteVariantRequest& request) {
  v1::DeleteVariantResponse response;
  const grpc::Status s = stub_->DeleteVariant(UnaryContext().get(), request, &response);
  if (!s.ok()) return Check(s);
  return absl::OkStatus();
}

absl::Status Connection::WatchJob(const std::string& job_id,
                                  const std::function<void(const v1::Job&)>& on_update) {
  grpc::ClientContext context;
  Authorize(&context);
  v1::WatchJobRequest request;
  request.set_job_id(job_id);
  std::unique_ptr<grpc::ClientReader<v1::WatchJobResponse>> reader =
      stub_->WatchJob(&context, request);
  v1::WatchJobResponse response;
  while (reader->Read(&response)) on_update(response.job());
  return Check(reader->Finish());
}

absl::Status Connection::GetArtifact(
    const std::string& job_id, const std::string& name,
    const std::function<absl::Status(const v1::GetArtifactResponse&)>& on_chunk) {
  grpc::ClientContext context;
  Authorize(&context);
  v1::GetArtifactRequest request;
  request.set_job_id(job_id);
  request.set_name(name);
  std::unique_ptr<grpc::ClientReader<v1::GetArtifactResponse>> reader =
      stub_->GetArtifact(&context, request);
  v1::GetArtifactResponse chunk;
  while (reader->Read(&chunk)) {
    if (absl::Status s = on_chunk(chunk); !s.ok()) {
      context.TryCancel();
      reader->Finish();  // Drains the cancelled call; its CANCELLED status is ours.
      return s;
    }
  }
  return Check(reader->Finish());
}

absl::StatusOr<health::HealthCheckResponse> Connection::CheckHealth(const std::string& service) {
  // Called by name: kbctl has no generated grpc.health.v1 stub (see client/CMakeLists.txt).
  grpc::TemplatedGenericStub<health::HealthCheckRequest, health::HealthCheckResponse> stub(
      channel_);
  health::HealthCheckRequest request;
  request.set_service(service);
  health::HealthCheckResponse response;
  std::unique_ptr<grpc::ClientContext> context = UnaryContext();
  std::promise<grpc::Status> done;
  stub.UnaryCall(context.get(), kHealthCheckMethod, grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  const grpc::Status s = done.get_future().get();
  if (!s.ok()) return Check(s);
  return response;
}

}  // namespace kbench::client
