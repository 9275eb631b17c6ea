// kbench-collectives-bench: one multi-GPU benchmark job per message size through the executor's
// own path (the lead device's CudaRunner and RunCollectiveJob, as kbenchd's executor runs it),
// printing per size and variant the median time, nccl-tests' algorithm and bus bandwidth, the
// slowest rank and the interconnect's measured peak; --jsonl also writes one JSON line each.
// For tools/gpu/collectives_proof.sh, where no kbenchd job path is needed to time collectives.
//
// usage: kbench-collectives-bench --devices cuda:0,cuda:1 --op all_reduce
//          --variants nccl,one_shot,two_shot --bytes 8192,32768,... [--dtype f32|bf16]
//          [--min-time S] [--timeout S] [--jsonl FILE]
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "kernels/catalogue.h"
#include "kernels/ops/collectives.h"
#include "server/common/device_id.h"
#include "server/executor/cuda/collective_job.h"
#include "server/executor/cuda/cuda_runner.h"

namespace kbench::executor::cuda {
namespace {

struct Flags {
  std::vector<std::string> devices = {"cuda:0", "cuda:1"};
  std::string op = "all_reduce";
  std::vector<std::string> variants = {"nccl", "one_shot", "two_shot"};
  std::vector<int64_t> bytes = {int64_t{1} << 20};
  std::string dtype = "f32";
  double min_time = 0.2;
  double timeout = 10;
  std::string jsonl;
};

// NCCL's count for a message of `bytes` (nccl-tests' size): bytes / element size, divided by the
// world size where the message is the whole world's (all_gather's output, ...).
int64_t CountFor(const kernels::CollectiveDesc& c, int64_t bytes, int element, int world) {
  const int64_t per_count = c.message_elements(1, world);
  return std::max<int64_t>(1, bytes / element / per_count);
}

v1::JobSpec MakeSpec(const Flags& f, int64_t count) {
  v1::JobSpec spec;
  spec.set_kind(v1::JOB_KIND_BENCHMARK);
  spec.set_kernel(f.op);
  for (const std::string& v : f.variants) spec.add_variants(v);
  spec.add_shape(count);
  spec.set_dtype(f.dtype == "bf16" ? v1::DTYPE_BF16 : v1::DTYPE_F32);
  spec.set_device(f.devices.front());
  for (const std::string& d : f.devices) spec.add_devices(d);
  spec.mutable_stopping()->set_min_time_seconds(f.min_time);
  spec.mutable_stopping()->set_timeout_seconds(f.timeout);
  return spec;
}

void Print(const Flags& f, int64_t count, const v1::VariantResult& vr, std::ofstream* jsonl) {
  const v1::Collective& c = vr.collective();
  std::printf("%-14s %-12s %12lld %12lld %11.2f %10.2f %10.2f %10.2f  rank%d  %s\n", f.op.c_str(),
              vr.variant().c_str(), static_cast<long long>(c.message_bytes()),
              static_cast<long long>(count), vr.stats().median_seconds() * 1e6,
              c.algorithm_bytes_per_second() / 1e9, c.bus_bytes_per_second() / 1e9,
              c.peak_bus_bytes_per_second() / 1e9, c.slowest_rank(), vr.stop_reason().c_str());
  std::fflush(stdout);
  if (jsonl == nullptr) return;
  *jsonl << absl::StrFormat(
      "{\"source\":\"kbench\",\"op\":\"%s\",\"variant\":\"%s\",\"dtype\":\"%s\",\"world_size\":%d,"
      "\"message_bytes\":%d,\"count\":%d,\"median_seconds\":%.9e,\"algbw\":%.6e,\"busbw\":%.6e,"
      "\"bus_factor\":%.6f,\"peak\":%.6e,\"slowest_rank\":%d,\"samples\":%d}\n",
      f.op, vr.variant(), f.dtype, c.world_size(), c.message_bytes(), count,
      vr.stats().median_seconds(), c.algorithm_bytes_per_second(), c.bus_bytes_per_second(),
      c.bus_factor(), c.peak_bus_bytes_per_second(), c.slowest_rank(), vr.stats().samples());
  jsonl->flush();
}

int Main(int argc, char** argv) {
  Flags f;
  CLI::App app{"kbench-collectives-bench: multi-GPU jobs over message sizes (issue 30)"};
  app.add_option("--devices", f.devices, "The gang, lead first")->delimiter(',');
  app.add_option("--op", f.op, "A collective of the catalogue");
  app.add_option("--variants", f.variants, "Its variants")->delimiter(',');
  app.add_option("--bytes", f.bytes, "Message sizes (nccl-tests' size), bytes")->delimiter(',');
  app.add_option("--dtype", f.dtype, "f32 or bf16")->check(CLI::IsMember({"f32", "bf16"}));
  app.add_option("--min-time", f.min_time, "Minimum measured seconds per variant and size");
  app.add_option("--timeout", f.timeout, "Sampling timeout per variant and size, seconds");
  app.add_option("--jsonl", f.jsonl, "Also write one JSON line per size and variant here");
  CLI11_PARSE(app, argc, argv);
  const kernels::CollectiveDesc* c = kernels::FindCollective(f.op);
  if (c == nullptr) return std::fprintf(stderr, "--op: %s is not a collective\n", f.op.c_str()), 2;
  const absl::StatusOr<DeviceId> lead = ParseDeviceId(f.devices.front());
  if (!lead.ok() || lead->kind != DeviceId::Kind::kCuda) {
    return std::fprintf(stderr, "--devices: the lead must be cuda:N\n"), 2;
  }
  CudaRunner runner(lead->ordinal);
  if (const absl::Status s = runner.Initialize(); !s.ok()) {
    return std::fprintf(stderr, "%s: %s\n", f.devices.front().c_str(), s.ToString().c_str()), 1;
  }
  std::ofstream jsonl;
  if (!f.jsonl.empty()) jsonl.open(f.jsonl, std::ios::app);
  std::printf("%-14s %-12s %12s %12s %11s %10s %10s %10s  %s\n", "op", "variant", "bytes", "count",
              "median_us", "algbw_GBs", "busbw_GBs", "peak_GBs", "slowest");
  const int element = f.dtype == "bf16" ? 2 : 4;
  const int world = static_cast<int>(f.devices.size());
  for (int64_t bytes : f.bytes) {
    const int64_t count = CountFor(*c, bytes, element, world);
    internal::v1::RunJob job;
    *job.mutable_spec() = MakeSpec(f, count);
    job.set_job_id(absl::StrFormat("collectives-bench-%d", bytes));
    JobContext context;
    context.job = &job;
    absl::StatusOr<JobRun> run = RunCollectiveJob(runner, context);
    if (!run.ok()) {
      std::fprintf(stderr, "%s at %lld bytes: %s\n", f.op.c_str(), static_cast<long long>(bytes),
                   run.status().ToString().c_str());
      return 1;
    }
    for (const v1::VariantResult& vr : run->result.variants()) {
      Print(f, count, vr, f.jsonl.empty() ? nullptr : &jsonl);
    }
  }
  return 0;
}

}  // namespace
}  // namespace kbench::executor::cuda

int main(int argc, char** argv) { return kbench::executor::cuda::Main(argc, argv); }
