// Loading user modules with the runtime's library API and launching them with cudaLaunchKernelExC.
#include "server/executor/cuda/user_variant.h"

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kernels/abi.h"
#include "kernels/catalogue.h"
#include "server/executor/usermodule/compile_child.h"
#include "server/executor/usermodule/launch_config.h"
#include "server/executor/usermodule/user_compiler.h"

namespace kbench::executor::cuda {

cudaLaunchConfig_t UserLaunchConfig(const usermodule::EvaluatedLaunch& launch, cudaStream_t stream,
                                    cudaLaunchAttribute* cluster) {
  cudaLaunchConfig_t config{};
  config.gridDim =
      dim3(static_cast<unsigned>(launch.grid[0]), static_cast<unsigned>(launch.grid[1]),
           static_cast<unsigned>(launch.grid[2]));
  config.blockDim =
      dim3(static_cast<unsigned>(launch.block[0]), static_cast<unsigned>(launch.block[1]),
           static_cast<unsigned>(launch.block[2]));
  config.dynamicSmemBytes = static_cast<size_t>(launch.dynamic_smem_bytes);
  config.stream = stream;
  if (launch.cluster[0] > 0) {
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = static_cast<unsigned>(launch.cluster[0]);
    cluster->val.clusterDim.y = static_cast<unsigned>(launch.cluster[1]);
    cluster->val.clusterDim.z = static_cast<unsigned>(launch.cluster[2]);
    config.attrs = cluster;
    config.numAttrs = 1;
  }
  return config;
}

namespace {

// Above this, a kernel must opt in to more dynamic shared memory (cudaFuncSetAttribute).
constexpr int64_t kDefaultDynamicSmemLimit = 48 * 1024;

std::string CacheKey(const v1::UserKernel& uk, const kernels::SmArch& arch,
                     const std::string& sha256) {
  return absl::StrCat(sha256, "|", uk.form(), "|", absl::StrJoin(uk.options(), " "), "|",
                      arch.ToString(), "|", uk.entry());
}

absl::Status LoadError(const char* what, cudaError_t err, const kernels::SmArch& arch) {
  cudaGetLastError();  // load errors are not sticky; clear them
  return absl::InvalidArgumentError(absl::StrCat("code: ", what, " on this device (",
                                                 arch.ToString(), "): ", cudaGetErrorName(err),
                                                 ": ", cudaGetErrorString(err)));
}

absl::Status Load(const kernels::SmArch& arch, LoadedUserModule* m) {
  const std::string& image = m->compiled.cubin();
  if (const cudaError_t err =
          cudaLibraryLoadData(&m->library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      err != cudaSuccess) {
    m->library = nullptr;
    return LoadError("the module does not load", err, arch);
  }
  const std::string& entry = m->compiled.report().lowered_entry();
  if (const cudaError_t err = cudaLibraryGetKernel(&m->kernel, m->library, entry.c_str());
      err != cudaSuccess) {
    return LoadError(absl::StrCat("the module has no kernel '", entry, "'").c_str(), err, arch);
  }
  if (const cudaError_t err =
          cudaFuncGetAttributes(&m->attributes, reinterpret_cast<const void*>(m->kernel));
      err != cudaSuccess) {
    return LoadError("cannot read the kernel's attributes", err, arch);
  }
  return absl::OkStatus();
}

// The arguments in ABI order: input and output pointers, dims and params as int64 (or int32
// for a Triton kernel compiled so; kbenchd refused values that do not fit), then the trailing
// null pointers a Triton kernel takes.
struct AbiArguments {
  std::vector<int64_t> scalars;
  bool int32_scalars = false;
  int trailing_nulls = 0;
};

absl::Status LaunchUser(cudaKernel_t kernel, const usermodule::EvaluatedLaunch& launch,
                        const AbiArguments& abi, const kernels::cuda::LaunchArgs& a) {
  std::vector<const void*> pointers(a.inputs.begin(), a.inputs.end());
  pointers.insert(pointers.end(), a.outputs.begin(), a.outputs.end());
  const size_t tensors = pointers.size();
  pointers.resize(tensors + static_cast<size_t>(abi.trailing_nulls), nullptr);
  std::vector<int64_t> scalars = abi.scalars;
  std::vector<int32_t> scalars32;  // only for a kernel that takes int32 scalars
  if (abi.int32_scalars) scalars32.assign(scalars.begin(), scalars.end());
  std::vector<void*> argv;
  for (size_t i = 0; i < tensors; ++i) argv.push_back(&pointers[i]);
  for (size_t i = 0; i < scalars.size(); ++i) {
    argv.push_back(abi.int32_scalars ? static_cast<void*>(&scalars32[i])
                                     : static_cast<void*>(&scalars[i]));
  }
  for (size_t i = tensors; i < pointers.size(); ++i) argv.push_back(&pointers[i]);

  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config = UserLaunchConfig(launch, a.stream, &cluster);
  return kernels::cuda::CudaStatus(
      cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), argv.data()),
      "launch of the user kernel (cudaLaunchKernelExC)", __FILE__, __LINE__);
}

}  // namespace

UserModuleCache::~UserModuleCache() { UnloadAll(); }

void UserModuleCache::UnloadAll() {
  for (auto& [key, m] : loaded_) {
    if (m->library != nullptr) cudaLibraryUnload(m->library);
  }
  loaded_.clear();
}

absl::StatusOr<const LoadedUserModule*> UserModuleCache::Get(const v1::UserKernel& uk,
                                                             const kernels::SmArch& arch,
                                                             const std::string& scratch_dir,
                                                             const std::atomic<bool>* cancelled,
                                                             bool* cache_hit) {
  // Hashing the code is cheap next to a compile, and keys the cache by content, not by name.
  const std::string key = CacheKey(uk, arch, usermodule::Sha256Hex(uk.code()));
  if (const auto it = loaded_.find(key); it != loaded_.end()) {
    *cache_hit = true;
    return it->second.get();
  }
  const internal::v1::CompileReply* compiled = compiled_.Find(key);
  *cache_hit = compiled != nullptr;
  if (!*cache_hit) {
    KBENCH_ASSIGN_OR_RETURN(
        internal::v1::CompileReply reply,
        usermodule::CompileInChild(uk, arch, scratch_dir, kernels::kMaxCompileSeconds, cancelled));
    if (reply.code() != 0) {
      return absl::Status(static_cast<absl::StatusCode>(reply.code()), reply.message());
    }
    compiled = &compiled_.Put(key, owner_, std::move(reply));
  }
  auto module = std::make_unique<LoadedUserModule>();
  module->compiled = *compiled;
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status s = Load(arch, module.get()); !s.ok()) {
    if (module->library != nullptr) cudaLibraryUnload(module->library);
    return s;
  }
  module->load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const LoadedUserModule* out = module.get();
  loaded_[key] = std::move(module);
  return out;
}

namespace {

void DescribeUserModule(const LoadedUserModule& m, const v1::UserKernel& uk,
                        const usermodule::EvaluatedLaunch& launch, bool cache_hit,
                        v1::UserModuleRecord* r) {
  const v1::CompileResult& c = m.compiled.report();
  r->set_form(uk.form());
  r->set_module_sha256(c.module_sha256());
  r->set_entry(uk.entry());
  usermodule::DescribeLaunch(uk, launch, r);
  r->set_compiler(c.compiler());
  r->set_compiler_version(c.compiler_version());
  for (const std::string& o : c.options()) r->add_options(o);
  r->set_arch(c.arch());
  r->set_cache_hit(cache_hit);
  r->set_load_seconds(m.load_seconds);
  v1::KernelResources* k = r->mutable_resources();
  k->set_entry(c.lowered_entry());
  k->set_registers_per_thread(m.attributes.numRegs);
  k->set_static_shared_bytes(static_cast<int64_t>(m.attributes.sharedSizeBytes));
  k->set_dynamic_shared_bytes(launch.dynamic_smem_bytes);
  k->set_local_bytes_per_thread(static_cast<int64_t>(m.attributes.localSizeBytes));
  k->set_max_threads_per_block(m.attributes.maxThreadsPerBlock);
  k->set_block_threads(static_cast<int32_t>(launch.threads_per_block()));
}

}  // namespace

absl::Status FitUserLaunch(const LoadedUserModule& module, const v1::UserKernel& uk,
                           const usermodule::EvaluatedLaunch& launch, int device) {
  if (launch.threads_per_block() > module.attributes.maxThreadsPerBlock) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch.block: ", launch.threads_per_block(), " threads per block, but the compiled '",
        uk.entry(), "' allows at most ", module.attributes.maxThreadsPerBlock,
        " (its registers or __launch_bounds__)"));
  }
  if (launch.dynamic_smem_bytes > kDefaultDynamicSmemLimit) {
    if (const cudaError_t err = cudaKernelSetAttributeForDevice(
            module.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(launch.dynamic_smem_bytes), device);
        err != cudaSuccess) {
      cudaGetLastError();
      return absl::InvalidArgumentError(absl::StrCat(
          "launch.dynamic_smem: ", launch.dynamic_smem_bytes,
          " bytes are more than this device allows per block: ", cudaGetErrorName(err)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<VariantLauncher> MakeUserLauncher(const LoadedUserModule& module,
                                                 const v1::UserKernel& uk,
                                                 const kernels::Problem& problem, int device,
                                                 bool cache_hit) {
  const kernels::Operation* op = kernels::FindOperation(problem.op);
  if (op == nullptr) return absl::InvalidArgumentError("kernel: unknown operation " + problem.op);
  KBENCH_ASSIGN_OR_RETURN(const usermodule::EvaluatedLaunch launch,
                          usermodule::EvaluateLaunch(uk, problem));
  KBENCH_RETURN_IF_ERROR(FitUserLaunch(module, uk, launch, device));
  AbiArguments abi;
  abi.scalars = AbiScalars(*op, problem);
  const bool triton = uk.form() == v1::USER_KERNEL_FORM_TRITON;
  abi.trailing_nulls = triton ? uk.triton().trailing_null_pointers() : 0;
  abi.int32_scalars = triton && uk.triton().int32_scalars();
  VariantLauncher launcher;
  const cudaKernel_t kernel = module.kernel;
  launcher.launch = [kernel, launch, abi](const kernels::Problem&,
                                          const kernels::cuda::LaunchArgs& a) {
    return LaunchUser(kernel, launch, abi, a);
  };
  launcher.describe = UserModuleDescriber(module, uk, launch, cache_hit);
  return launcher;
}

std::vector<int64_t> AbiScalars(const kernels::Operation& op, const kernels::Problem& problem) {
  std::vector<int64_t> scalars = kernels::AbiDimValues(op, problem);
  for (const kernels::ParamDesc& p : op.params) scalars.push_back(problem.params.at(p.name));
  return scalars;
}

std::function<void(v1::VariantResult*)> UserModuleDescriber(
    const LoadedUserModule& module, const v1::UserKernel& kernel,
    const usermodule::EvaluatedLaunch& launch, bool cache_hit) {
  v1::UserKernel described = kernel;
  described.clear_code();  // up to 32 MiB, and its sha256 is what the record keeps
  return [&module, described, launch, cache_hit](v1::VariantResult* out) {
    DescribeUserModule(module, described, launch, cache_hit, out->mutable_user_module());
  };
}

}  // namespace kbench::executor::cuda
