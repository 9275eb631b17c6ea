// The scripted kbench.v1 server of kbctl's tests.
#include "tests/client/fake_kbench_server.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/artifact_download.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "kernels/catalogue.h"
#include "server/common/kernel_info.h"

namespace kbench::client::testing {
namespace {

constexpr size_t kChunkBytes = 1000;

std::vector<v1::Job> DefaultScript(const v1::Job& submitted) {
  v1::Job running = submitted;
  running.set_state(v1::JOB_STATE_RUNNING);
  running.set_device(submitted.spec().device() == "cuda:any" ? "cuda:0"
                                                             : submitted.spec().device());
  running.mutable_progress()->set_phase("measure");
  running.mutable_progress()->set_variant(submitted.spec().variants(0));
  running.mutable_progress()->set_samples(5);
  running.mutable_progress()->set_noise(0.02);
  running.mutable_progress()->set_elapsed_seconds(0.1);
  v1::Job later = running;
  later.mutable_progress()->set_samples(50);
  later.mutable_progress()->set_noise(0.004);
  later.mutable_progress()->set_elapsed_seconds(1.6);
  v1::Job done = later;
  done.set_state(v1::JOB_STATE_SUCCEEDED);
  done.clear_progress();
  double median = 1e-3;
  for (const std::string& v : submitted.spec().variants()) {
    *done.mutable_result()->add_variants() = MakeVariantResult(v, median);
    median /= 2;
  }
  v1::Environment* env = done.mutable_result()->mutable_environment();
  env->set_device_id(done.device());
  env->set_device_name("Fake Device");
  env->set_seed(submitted.spec().seed() != 0 ? submitted.spec().seed() : 77);
  return {running, later, done};
}

}  // namespace

v1::VariantResult MakeVariantResult(const std::string& variant, double median) {
  v1::VariantResult v;
  v.set_variant(variant);
  v1::Statistics* s = v.mutable_stats();
  s->set_min_seconds(median * 0.98);
  s->set_median_seconds(median);
  s->set_mean_seconds(median * 1.01);
  s->set_stddev_seconds(median * 0.003);
  s->set_max_seconds(median * 1.2);
  s->set_p10_seconds(median * 0.99);
  s->set_p90_seconds(median * 1.02);
  s->set_p99_seconds(median * 1.1);
  s->set_relative_stddev(0.003);
  s->set_samples(120);
  s->set_launches_per_sample(1);
  v1::Correctness* c = v.mutable_correctness();
  c->set_checked(true);
  c->set_passed(true);
  c->set_relative_l2_error(1.5e-7);
  c->set_tolerance(1e-5);
  c->set_elements_checked(4096);
  v.set_bytes(8 << 20);
  v.set_bytes_per_second(static_cast<double>(8 << 20) / median);
  v.set_fraction_of_copy_bandwidth(0.5);
  v.set_stop_reason("converged");
  v.set_converged(true);
  v.set_mode(v1::MEASURE_MODE_HOT);
  v.set_measured_seconds(0.6);
  v.set_wall_seconds(1.7);
  return v;
}

FakeKbenchServer::FakeKbenchServer() : script_(DefaultScript) {
  // The daemon's own catalogue, converted as ListKernels converts it: a test that names a
  // kernel, variant or dtype the daemon lacks fails here as kbctl would fail against kbenchd.
  for (const kernels::Operation& op : kernels::Catalogue()) {
    *kernels_.add_kernels() = KernelInfoOf(op);
  }

  v1::DeviceInfo* cpu = devices_.add_devices();
  cpu->set_id("cpu");
  cpu->set_kind(v1::DEVICE_KIND_CPU);
  cpu->set_name("Fake CPU");
  cpu->set_state(v1::DEVICE_STATE_READY);
  cpu->set_cpu_threads(2);
  cpu->set_copy_bandwidth_bytes_per_second(12.5e9);

  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(this);
  server_ = builder.BuildAndStart();
  address_ = absl::StrCat("127.0.0.1:", port);
}

FakeKbenchServer::~FakeKbenchServer() { server_->Shutdown(); }

void FakeKbenchServer::SetServing(bool serving) {
  server_->GetHealthCheckService()->SetServingStatus(serving);
}

void FakeKbenchServer::set_script(Script script) {
  absl::MutexLock lock(&mu_);
  script_ = std::move(script);
}

void FakeKbenchServer::AddJob(const v1::Job& job) {
  absl::MutexLock lock(&mu_);
  order_.push_back(job.id());
  states_[job.id()] = {job};
}

void FakeKbenchServer::AddArtifact(const std::string& job_id, const std::string& name,
                                   const std::string& bytes, const std::string& announced_sha256) {
  absl::MutexLock lock(&mu_);
  Artifact& a = artifacts_[{job_id, name}];
  a.bytes = bytes;
  a.info.set_name(name);
  a.info.set_size_bytes(static_cast<int64_t>(bytes.size()));
  a.info.set_sha256(announced_sha256.empty() ? Sha256Hex(bytes) : announced_sha256);
  a.info.set_content_type("application/octet-stream");
  auto it = states_.find(job_id);
  if (it != states_.end()) *it->second.back().add_artifacts() = a.info;
}

void FakeKbenchServer::FailSubmitWith(grpc::Status status, int times) {
  absl::MutexLock lock(&mu_);
  submit_error_ = std::move(status);
  submit_errors_left_ = times;
}

std::vector<v1::SubmitJobRequest> FakeKbenchServer::submits() const {
  absl::MutexLock lock(&mu_);
  return submits_;
}

std::vector<v1::ListJobsRequest> FakeKbenchServer::list_requests() const {
  absl::MutexLock lock(&mu_);
  return list_requests_;
}

int FakeKbenchServer::rpc_count() const {
  absl::MutexLock lock(&mu_);
  return rpcs_;
}

void FakeKbenchServer::Count() {
  absl::MutexLock lock(&mu_);
  ++rpcs_;
}

grpc::Status FakeKbenchServer::ListKernels(grpc::ServerContext*, const v1::ListKernelsRequest*,
                                           v1::ListKernelsResponse* response) {
  Count();
  *response = kernels_;
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::ListDevices(grpc::ServerContext*, const v1::ListDevicesRequest*,
                                           v1::ListDevicesResponse* response) {
  Count();
  *response = devices_;
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::ListHistory(grpc::ServerContext*, const v1::ListHistoryRequest*,
                                           v1::ListHistoryResponse* response) {
  Count();
  *response = history_;
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::SubmitJob(grpc::ServerContext*, const v1::SubmitJobRequest* request,
                                         v1::SubmitJobResponse* response) {
  Count();
  absl::MutexLock lock(&mu_);
  submits_.push_back(*request);
  if (!submit_error_.ok() && submit_errors_left_ != 0) {
    if (submit_errors_left_ > 0) --submit_errors_left_;
    return submit_error_;
  }
  if (!request->idempotency_key().empty()) {
    auto it = idempotency_.find(request->idempotency_key());
    if (it != idempotency_.end()) {
      *response->mutable_job() = Current(it->second);
      response->set_deduplicated(true);
      return grpc::Status::OK;
    }
  }
  v1::Job job;
  job.set_id(absl::StrCat("job-", next_id_++));
  *job.mutable_spec() = request->spec();
  job.set_state(v1::JOB_STATE_QUEUED);
  job.set_device(request->spec().device());
  job.set_idempotency_key(request->idempotency_key());
  job.mutable_create_time()->set_seconds(1'700'000'000);
  std::vector<v1::Job> states = {job};
  for (v1::Job& s : script_(job)) states.push_back(std::move(s));
  // Artifacts registered ahead of the submit belong to the job's final state.
  for (const auto& [key, artifact] : artifacts_) {
    if (key.first == job.id()) *states.back().add_artifacts() = artifact.info;
  }
  states_[job.id()] = std::move(states);
  order_.push_back(job.id());
  if (!request->idempotency_key().empty()) idempotency_[request->idempotency_key()] = job.id();
  *response->mutable_job() = job;
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::GetJob(grpc::ServerContext*, const v1::GetJobRequest* request,
                                      v1::GetJobResponse* response) {
  Count();
  absl::MutexLock lock(&mu_);
  auto it = states_.find(request->job_id());
  if (it == states_.end()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("job_id: no job \"", request->job_id(), "\""));
  }
  *response->mutable_job() = Current(request->job_id());
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::WatchJob(grpc::ServerContext*, const v1::WatchJobRequest* request,
                                        grpc::ServerWriter<v1::WatchJobResponse>* writer) {
  Count();
  std::vector<v1::Job> states;
  {
    absl::MutexLock lock(&mu_);
    auto it = states_.find(request->job_id());
    if (it == states_.end()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("job_id: no job \"", request->job_id(), "\""));
    }
    states = it->second;
  }
  for (size_t i = 0; i < states.size(); ++i) {
    v1::WatchJobResponse r;
    *r.mutable_job() = states[i];
    if (!writer->Write(r)) break;
    absl::MutexLock lock(&mu_);
    current_[request->job_id()] = i;
  }
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::CancelJob(grpc::ServerContext*, const v1::CancelJobRequest* request,
                                         v1::CancelJobResponse* response) {
  Count();
  absl::MutexLock lock(&mu_);
  auto it = states_.find(request->job_id());
  if (it == states_.end()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("job_id: no job \"", request->job_id(), "\""));
  }
  v1::Job job = Current(request->job_id());
  job.set_state(v1::JOB_STATE_CANCELLED);
  job.set_error("cancelled by request");
  it->second = {job};
  current_[job.id()] = 0;
  *response->mutable_job() = job;
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                        v1::ListJobsResponse* response) {
  Count();
  absl::MutexLock lock(&mu_);
  list_requests_.push_back(*request);
  size_t offset = 0;
  if (!request->page_token().empty()) {
    absl::string_view token = request->page_token();
    if (!absl::ConsumePrefix(&token, "offset:") || !absl::SimpleAtoi(token, &offset)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat("page_token: malformed \"", request->page_token(), "\""));
    }
  }
  const size_t page = request->page_size() > 0 ? request->page_size() : 50;
  std::vector<const v1::Job*> matching;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const v1::Job& job = Current(*it);
    if (request->state() != v1::JOB_STATE_UNSPECIFIED && job.state() != request->state()) continue;
    if (!request->kernel().empty() && job.spec().kernel() != request->kernel()) continue;
    if (!request->device().empty() && job.device() != request->device()) continue;
    matching.push_back(&job);
  }
  for (size_t i = offset; i < matching.size() && i < offset + page; ++i) {
    *response->add_jobs() = *matching[i];
  }
  if (offset + page < matching.size()) {
    response->set_next_page_token(absl::StrCat("offset:", offset + page));
  }
  return grpc::Status::OK;
}

grpc::Status FakeKbenchServer::GetArtifact(grpc::ServerContext*,
                                           const v1::GetArtifactRequest* request,
                                           grpc::ServerWriter<v1::GetArtifactResponse>* writer) {
  Count();
  Artifact artifact;
  {
    absl::MutexLock lock(&mu_);
    auto it = artifacts_.find({request->job_id(), request->name()});
    if (it == artifacts_.end()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("name: job \"", request->job_id(), "\" has no artifact \"",
                                       request->name(), "\""));
    }
    artifact = it->second;
  }
  size_t offset = 0;
  do {
    v1::GetArtifactResponse chunk;
    if (offset == 0) *chunk.mutable_info() = artifact.info;
    chunk.set_offset(static_cast<int64_t>(offset));
    chunk.set_data(artifact.bytes.substr(offset, kChunkBytes));
    offset += chunk.data().size();
    if (!writer->Write(chunk)) break;
  } while (offset < artifact.bytes.size());
  return grpc::Status::OK;
}

}  // namespace kbench::client::testing
