// Job flags -> SubmitJobRequest, shared by bench, compare and profile.
#include "client/spec_options.h"

#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/args.h"
#include "client/errors.h"
#include "client/session.h"
#include "common/placement_limits.h"
#include "common/status_macros.h"

namespace kbench::client {
namespace {

constexpr char kAll[] = "all";
// More GPUs than any one host has; kbenchd says how many it has.
constexpr int64_t kMaxGpusAsked = 1024;

bool Contains(const auto& list, const auto& value) {
  for (const auto& v : list) {
    if (v == value) return true;
  }
  return false;
}

absl::Status FillStopping(const SpecFlags& f, v1::StoppingCriteria* s) {
  if (f.max_noise.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(double v, ParseFraction("--max-noise", *f.max_noise));
    s->set_max_noise(v);
  }
  if (f.min_samples.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t v, ParseInt("--min-samples", *f.min_samples, 1,
                                                std::numeric_limits<int32_t>::max()));
    s->set_min_samples(static_cast<int32_t>(v));
  }
  if (f.min_time.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(double v, ParseSeconds("--min-time", *f.min_time, /*allow_zero=*/true));
    s->set_min_time_seconds(v);
  }
  if (f.timeout_s.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(double v,
                            ParseSeconds("--timeout-s", *f.timeout_s, /*allow_zero=*/false));
    s->set_timeout_seconds(v);
  }
  return absl::OkStatus();
}

absl::Status FillVariants(const SpecFlags& f, SubmitCommand command, v1::JobSpec* spec) {
  if (command == SubmitCommand::kCompile) return absl::OkStatus();
  const std::string flag = command == SubmitCommand::kBench ? "--variant" : "--variants";
  const std::vector<std::string> items = command != SubmitCommand::kBench ? f.variants
                                         : f.variant.empty() ? std::vector<std::string>{}
                                                             : std::vector<std::string>{f.variant};
  KBENCH_ASSIGN_OR_RETURN(std::vector<std::string> names, ParseNameList(flag, items));
  if (names.empty() && f.user.given()) return absl::OkStatus();  // the user kernel alone
  if (command == SubmitCommand::kBench && f.user.given()) {
    return UsageError(
        absl::StrCat("--variant: bench times one variant, and --source gives it; "
                     "use `kbctl compare ",
                     f.kernel, " --variants ", absl::StrJoin(names, ","), " --source ...`"));
  }
  if (names.empty()) {
    return UsageError(
        absl::StrCat(flag, ": required; `kbctl kernels ", f.kernel, "` lists the variants"));
  }
  if (Contains(names, kAll) && names.size() > 1) {
    return UsageError(absl::StrCat(flag, ": \"all\" cannot be combined with other names"));
  }
  if (command == SubmitCommand::kBench) {
    if (names.size() > 1) {
      return UsageError(absl::StrCat("--variant: bench times one variant, got ", names.size(), " (",
                                     absl::StrJoin(names, ","), "); use `kbctl compare ", f.kernel,
                                     " --variants ...`"));
    }
    if (names.front() == kAll) {
      return UsageError(absl::StrCat("--variant: bench times one variant; use `kbctl compare ",
                                     f.kernel, " --variants all`"));
    }
  }
  for (const std::string& name : names) spec->add_variants(name);
  return absl::OkStatus();
}

// The device kind a job for `device` runs on; UNSPECIFIED when the daemon picks.
v1::DeviceKind KindOfDevice(const std::string& device) {
  if (device == "cpu") return v1::DEVICE_KIND_CPU;
  if (absl::StartsWith(device, "cuda")) return v1::DEVICE_KIND_CUDA;
  return v1::DEVICE_KIND_UNSPECIFIED;
}

// Binds a flag whose presence matters even when its value is empty.
CLI::Option* AddTextOption(CLI::App* app, const std::string& name,
                           std::optional<std::string>* target, const std::string& help) {
  return app->add_option_function<std::string>(
      name, [target](const std::string& value) { *target = value; }, help);
}

// --devices and --gpus: a multi-GPU job's gang (kbenchd checks the devices exist and agree).
absl::Status FillDevices(const SpecFlags& f, v1::JobSpec* spec) {
  if (f.devices.has_value() && f.gpus.has_value()) {
    return UsageError("--devices, --gpus: give one (the devices, or how many)");
  }
  if (f.devices.has_value()) {
    for (absl::string_view name : absl::StrSplit(*f.devices, ',')) {
      KBENCH_ASSIGN_OR_RETURN(std::string device, ParseDevice("--devices", std::string(name)));
      spec->add_devices(device);
    }
  }
  if (f.gpus.has_value()) {
    if (*f.gpus == kAll) {
      spec->set_gpus(-1);
    } else {
      KBENCH_ASSIGN_OR_RETURN(int64_t n, ParseInt("--gpus", *f.gpus, 1, kMaxGpusAsked));
      spec->set_gpus(static_cast<int32_t>(n));
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddSpecFlags(CLI::App* app, SubmitCommand command, SpecFlags* f) {
  app->add_option("OP", f->kernel, "Operation, as listed by `kbctl kernels`")->required();
  if (command == SubmitCommand::kCompile) {
    // No variants: the user kernel is compiled, not run.
  } else if (command == SubmitCommand::kBench) {
    app->add_option("--variant", f->variant, "Variant to time (`kbctl kernels OP` lists them)")
        ->type_name("NAME");
  } else {
    app->add_option("--variants,--variant", f->variants,
                    "Comma-separated variants, or \"all\" for every variant that runs on the "
                    "device and dtype")
        ->type_name("A,B,...|all")
        ->allow_extra_args(false);
  }
  AddTextOption(app, "--shape", &f->shape,
                "Problem shape, e.g. 4096x4096 or 1024x1024x512 (default: the operation's)")
      ->type_name("DxD[xD...]");
  AddTextOption(app, "--dtype", &f->dtype, "Element type: f32, f16, bf16, tf32 (default f32)")
      ->type_name("TYPE");
  AddTextOption(app, "--device", &f->device,
                "cpu, cuda:N or cuda:any; in a fleet NODE/DEVICE or KIND:any, e.g. h100:any "
                "(default: the daemon's)")
      ->type_name("DEVICE");
  if (command != SubmitCommand::kCompile && command != SubmitCommand::kProfile) {
    AddTextOption(app, "--devices", &f->devices,
                  "A multi-GPU job (the collectives, e.g. all_reduce) on these devices of one "
                  "host, in rank order; all are held at once")
        ->type_name("cuda:0,cuda:1,...");
    AddTextOption(app, "--gpus", &f->gpus,
                  "A multi-GPU job on N ready devices of one model (the least queued), or on "
                  "all of them")
        ->type_name("N|all");
  }
  AddUserKernelFlags(app, &f->user, /*compile=*/command == SubmitCommand::kCompile);
  if (command != SubmitCommand::kCompile && command != SubmitCommand::kProfile) {
    AddTextOption(app, "--mode", &f->mode,
                  "cold (L2 flushed per sample), hot, graph (default: cold on CUDA, hot on cpu)")
        ->type_name("MODE");
    AddTextOption(app, "--max-noise", &f->max_noise,
                  "Stop when the relative stddev is below this (default 0.005 = 0.5%)")
        ->type_name("FRACTION");
    AddTextOption(app, "--min-samples", &f->min_samples, "At least this many samples (default 10)")
        ->type_name("N");
    AddTextOption(app, "--min-time", &f->min_time,
                  "At least this much measured time, seconds or 500ms (default 0.5)")
        ->type_name("SECONDS");
    AddTextOption(app, "--timeout-s", &f->timeout_s,
                  "Stop sampling after this long, seconds or 1m (default 15)")
        ->type_name("SECONDS");
    AddTextOption(app, "--placements", &f->placements,
                  "Allocate each variant's tensors N times, at different addresses and gaps, "
                  "and sample all N interleaved: the median pools them, and each placement's "
                  "median and their spread are shown (default 1, at most 16)")
        ->type_name("N");
    app->add_flag("--sanitize", f->sanitize,
                  "First run the user kernel under compute-sanitizer memcheck (report saved as "
                  "an artifact; a memory error fails the job)");
    app->add_flag("--ranked", f->ranked,
                  "A ranked run, the only kind `kbctl leaderboard` ranks: cold, 8 placements "
                  "from the executor's secret, the default stopping rule, no --seed");
  } else {
    AddTextOption(app, "--iterations", &f->iterations,
                  "Launches of each variant traced (default 10)")
        ->type_name("N");
    app->add_flag("--ncu", f->ncu, "Also run the first variant under Nsight Compute");
  }
  AddTextOption(app, "--seed", &f->seed, "Seed of the input generator (default: random, recorded)")
      ->type_name("N");
  AddTextOption(app, "--priority", &f->priority, "Higher runs first (default 0)")->type_name("N");
  app->add_option("--param", f->params, "Operation parameter, repeatable (e.g. layers=4)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  app->add_option("--owner", f->owner, "Who submitted it (default: $USER)")->type_name("NAME");
  app->add_option("--idempotency-key", f->idempotency_key,
                  "A retried submit with the same key returns the first job")
      ->type_name("KEY");
  app->add_flag("--no-wait", f->no_wait, "Print the submitted job and return");
}

absl::StatusOr<v1::SubmitJobRequest> BuildSubmitRequest(const SpecFlags& f, SubmitCommand command,
                                                        const std::string& default_owner) {
  v1::SubmitJobRequest request;
  v1::JobSpec* spec = request.mutable_spec();
  spec->set_kind(command == SubmitCommand::kProfile   ? v1::JOB_KIND_PROFILE
                 : command == SubmitCommand::kCompile ? v1::JOB_KIND_COMPILE
                                                      : v1::JOB_KIND_BENCHMARK);
  if (f.kernel.empty()) return UsageError("OP: required (`kbctl kernels` lists them)");
  spec->set_kernel(f.kernel);
  KBENCH_RETURN_IF_ERROR(FillVariants(f, command, spec));
  if (f.shape.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseShape("--shape", *f.shape));
    spec->mutable_shape()->Assign(shape.begin(), shape.end());
  }
  if (f.dtype.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(v1::DType dtype, ParseDType("--dtype", *f.dtype));
    spec->set_dtype(dtype);
  }
  if (f.device.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(std::string device, ParseDevice("--device", *f.device));
    spec->set_device(device);
  }
  KBENCH_RETURN_IF_ERROR(FillDevices(f, spec));
  if (f.mode.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(v1::MeasureMode mode, ParseMode("--mode", *f.mode));
    spec->set_mode(mode);
  }
  if (f.user.given()) {
    KBENCH_ASSIGN_OR_RETURN(v1::UserKernel uk, BuildUserKernel(f.user));
    if (uk.name().empty()) uk.set_name("@user");
    if (command != SubmitCommand::kCompile) spec->add_variants(uk.name());
    *spec->add_user_kernels() = std::move(uk);
  }
  if (command == SubmitCommand::kCompile) {
    if (f.user.arch.empty() && !absl::StartsWith(spec->device(), "cuda")) {
      return UsageError("--arch: required (e.g. sm_90a), or --device cuda:N for its architecture");
    }
    if (spec->device().empty()) spec->set_device("cpu");
  } else if (command != SubmitCommand::kProfile) {
    KBENCH_RETURN_IF_ERROR(FillStopping(f, spec->mutable_stopping()));
    spec->set_sanitize(f.sanitize);
    spec->set_ranked(f.ranked);
    if (f.placements.has_value()) {
      KBENCH_ASSIGN_OR_RETURN(int64_t n,
                              ParseInt("--placements", *f.placements, 1, kMaxPlacements));
      spec->set_placements(static_cast<int32_t>(n));
    }
  } else {
    if (f.iterations.has_value()) {
      KBENCH_ASSIGN_OR_RETURN(int64_t n, ParseInt("--iterations", *f.iterations, 1,
                                                  std::numeric_limits<int32_t>::max()));
      spec->mutable_profile()->set_iterations(static_cast<int32_t>(n));
    }
    spec->mutable_profile()->set_ncu(f.ncu);
  }
  if (f.seed.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(uint64_t seed, ParseUint64("--seed", *f.seed));
    spec->set_seed(seed);
  }
  if (f.priority.has_value()) {
    KBENCH_ASSIGN_OR_RETURN(int64_t p,
                            ParseInt("--priority", *f.priority, std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max()));
    spec->set_priority(static_cast<int32_t>(p));
  }
  // `auto`: the map's comma would split the macro's arguments.
  KBENCH_ASSIGN_OR_RETURN(auto params, ParseParams("--param", f.params));
  for (const auto& [name, value] : params) (*spec->mutable_params())[name] = value;
  spec->set_owner(f.owner.empty() ? default_owner : f.owner);
  request.set_idempotency_key(f.idempotency_key);
  return request;
}

bool NeedsCatalogue(const v1::SubmitJobRequest& request) {
  const v1::JobSpec& spec = request.spec();
  return spec.shape().empty() || (spec.variants_size() == 1 && spec.variants(0) == kAll);
}

absl::Status ResolveWithCatalogue(const v1::KernelInfo& kernel, v1::SubmitJobRequest* request) {
  v1::JobSpec* spec = request->mutable_spec();
  if (spec->shape().empty()) {
    if (kernel.default_shape().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shape: required; ", kernel.name(), " takes ", absl::StrJoin(kernel.dims(), " x ")));
    }
    *spec->mutable_shape() = kernel.default_shape();
  }
  if (spec->variants_size() == 1 && spec->variants(0) == kAll) {
    const v1::DeviceKind kind = KindOfDevice(spec->device());
    const v1::DType dtype = spec->dtype() == v1::DTYPE_UNSPECIFIED ? v1::DTYPE_F32 : spec->dtype();
    spec->clear_variants();
    std::vector<std::string> names;
    for (const v1::VariantInfo& v : kernel.variants()) {
      names.push_back(v.name());
      const bool runs_on_kind =
          kind == v1::DEVICE_KIND_UNSPECIFIED || Contains(v.device_kinds(), kind);
      const auto& dtypes = v.dtypes().empty() ? kernel.dtypes() : v.dtypes();
      if (runs_on_kind && Contains(dtypes, dtype)) spec->add_variants(v.name());
    }
    if (spec->variants().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--variants all: none of ", kernel.name(), "'s variants (",
                       absl::StrJoin(names, ", "), ") runs ", DTypeName(dtype), " on ",
                       spec->device().empty() ? "any device" : spec->device()));
    }
  }
  return absl::OkStatus();
}

absl::Status ResolveDefaults(Session& session, v1::SubmitJobRequest* request) {
  if (!NeedsCatalogue(*request)) return absl::OkStatus();
  v1::JobSpec* spec = request->mutable_spec();
  KBENCH_ASSIGN_OR_RETURN(v1::ListKernelsResponse kernels, session.connection().ListKernels());
  const v1::KernelInfo* kernel = nullptr;
  std::vector<std::string> names;
  for (const v1::KernelInfo& k : kernels.kernels()) {
    names.push_back(k.name());
    if (k.name() == spec->kernel()) kernel = &k;
  }
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("OP: no operation named \"", spec->kernel(),
                                                   "\"; the catalogue has ",
                                                   absl::StrJoin(names, ", ")));
  }
  // "all" must mean the variants of one device kind: without --device, take the kind the daemon
  // would pick, a GPU when it has one.
  if (spec->device().empty() && spec->variants_size() == 1 && spec->variants(0) == kAll) {
    KBENCH_ASSIGN_OR_RETURN(v1::ListDevicesResponse devices, session.connection().ListDevices());
    spec->set_device("cpu");
    for (const v1::DeviceInfo& d : devices.devices()) {
      if (d.kind() == v1::DEVICE_KIND_CUDA) spec->set_device("cuda:any");
    }
  }
  const bool had_shape = !spec->shape().empty();
  KBENCH_RETURN_IF_ERROR(ResolveWithCatalogue(*kernel, request));
  if (!had_shape) {
    session.Note(absl::StrCat("kbctl: no --shape given; using ", kernel->name(), "'s default ",
                              ShapeString({spec->shape().begin(), spec->shape().end()})));
  }
  return absl::OkStatus();
}

}  // namespace kbench::client
