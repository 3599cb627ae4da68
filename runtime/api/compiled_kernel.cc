#include "polyfuse/compiled_kernel.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "polyfuse/device.h"
#include "polyfuse/errors.h"
#include "runtime/cache/artifact_cache.h"
#include "runtime/api/compiled_kernel_factory.h"
#include "runtime/api/compiled_kernel_impl.h"
#include "runtime/api/launch_arguments.h"
#include "runtime/api/tensor_map_arguments.h"
#include "polyfuse_emu/emulator.h"

#if POLYFUSE_HAVE_CUDA
#include "runtime/cuda/driver.h"
#include "runtime/cuda/kernel_cache.h"
#endif

namespace polyfuse {
namespace fs = std::filesystem;
namespace {

KernelInfo kernel_info(const LaunchMetadata& m) {
  KernelInfo info;
  info.name = m.kernel;
  info.arch = m.arch;
  for (const KernelParameter& p : m.parameters) info.parameters.push_back(api::parameter_info(p));
  for (int d = 0; d < 3; ++d) {
    info.grid[d] = m.grid[d].value;
    info.grid_expressions[d] = m.grid[d].expression;
    info.block[d] = m.block[d];
  }
  info.dynamic_shared_bytes = m.dynamic_shared_bytes;
  info.options = m.options;
  return info;
}

// The directory holding this library, to find headers installed beside it.
fs::path library_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&kernel_info), &info) && info.dli_fname)
    return fs::absolute(fs::path(info.dli_fname)).parent_path();
  return {};
}

emu::BuildOptions emulator_build_options() {
  emu::BuildOptions options;
  const char* emu_cache = std::getenv("POLYFUSE_EMU_CACHE_DIR");
  if (!(emu_cache && *emu_cache)) options.cache_dir = (cache::cache_config_from_environment().root / "emu").string();
  // An installed tree: <prefix>/lib/libpolyfuse.so next to <prefix>/include/polyfuse_emu.
  const fs::path include = library_directory().parent_path() / "include";
  std::error_code ec;
  if (!library_directory().empty() && fs::exists(include / "polyfuse_emu" / "cuda_emulation.h", ec))
    options.extra_flags.push_back("-I" + include.string());
  return options;
}

#if POLYFUSE_HAVE_CUDA
CacheStatus status_of(cuda::CacheOutcome outcome) {
  switch (outcome) {
    case cuda::CacheOutcome::disabled: return CacheStatus::disabled;
    case cuda::CacheOutcome::miss: return CacheStatus::miss;
    case cuda::CacheOutcome::memory_hit: return CacheStatus::memory_hit;
    case cuda::CacheOutcome::disk_hit: return CacheStatus::disk_hit;
    case cuda::CacheOutcome::rebuilt_corrupt: return CacheStatus::rebuilt_corrupt;
  }
  return CacheStatus::disabled;
}
#endif

// The public form of the emulator's counters, the buffers in the kernel's parameter order.
LaunchStats launch_stats(const emu::Stats& stats, const LaunchMetadata& metadata) {
  LaunchStats s;
  s.emulated = true;
  s.counters = stats.counters();
  for (const KernelParameter& p : metadata.parameters)
    for (const emu::BufferStats& b : stats.buffers)
      if (b.name == p.name) s.buffers.push_back({b.name, b.bytes_loaded, b.bytes_stored});
  return s;
}

LaunchStats launch_emulated(const CompiledKernel::Impl& k, const api::PreparedLaunch& launch) {
  std::vector<std::unique_ptr<emu::ScopedBuffer>> buffers;
  std::vector<tma::TensorMapBytes> maps;  // the 'm' arguments point into it: no reallocation
  maps.reserve(launch.values.size());
  std::vector<emu::KernelArg> args;
  for (std::size_t i = 0; i < launch.values.size(); ++i) {
    const api::ParameterValue& v = launch.values[i];
    if (!v.is_pointer) {
      args.push_back(emu::KernelArg::i32(v.value));
      continue;
    }
    const std::size_t bytes = std::max(v.required_bytes, v.given_bytes);
    const KernelParameter& p = k.metadata.parameters[i];
    buffers.push_back(std::make_unique<emu::ScopedBuffer>(v.pointer, bytes, p.name));
    if (p.tma_box.empty()) {
      args.push_back(emu::KernelArg::pointer(v.pointer));
    } else {
      maps.push_back(api::tensor_map_argument(p, v, tma::Target::emulator));
      args.push_back(emu::KernelArg::tensor_map(maps.back().bytes));
    }
  }
  try {
    const unsigned grid_x = persistent_grid(k.metadata, launch.grid[0], emu::options().sm_count);
    return launch_stats(k.emulated->launch(k.metadata.kernel, ::dim3(grid_x, launch.grid[1], launch.grid[2]),
                                           ::dim3(launch.block[0], launch.block[1], launch.block[2]),
                                           static_cast<std::size_t>(launch.dynamic_shared_bytes), args,
                                           ::dim3(static_cast<unsigned>(k.metadata.cluster_x))),
                        k.metadata);
  } catch (const emu::EmulationError& e) {
    throw EmulatorError(e.what());
  }
}

// `total` with `more`'s counters added and its buffers appended.
void add_stats(LaunchStats& total, const LaunchStats& more) {
  total.emulated = total.emulated || more.emulated;
  for (const auto& [name, value] : more.counters) {
    bool found = false;
    for (auto& [total_name, total_value] : total.counters)
      if (total_name == name) {
        total_value += value;
        found = true;
      }
    if (!found) total.counters.emplace_back(name, value);
  }
  total.buffers.insert(total.buffers.end(), more.buffers.begin(), more.buffers.end());
}

// The start of the workspace of a launch of plan `k`: `given`, or the plan's own (cuda), or
// `host` resized (emu) and filled with 0xff bytes (NaN in every float type), as a GPU's
// workspace holds what the last launch left: a temporary read before it is written fails.
unsigned char* plan_workspace(const CompiledKernel::Impl& k, void* given, std::vector<unsigned char>& host) {
  if (given) {
    if (reinterpret_cast<std::uintptr_t>(given) % 256 != 0)
      throw ArgumentError("plan '" + k.metadata.kernel + "': the workspace is not 256-byte aligned");
    return static_cast<unsigned char*>(given);
  }
  if (k.workspace_bytes == 0) return nullptr;
  if (k.backend == Backend::emu) {
    host.assign(static_cast<std::size_t>(k.workspace_bytes) + 256, 0xff);
    const auto address = reinterpret_cast<std::uintptr_t>(host.data());
    return host.data() + (256 - address % 256) % 256;
  }
  const std::lock_guard<std::mutex> lock(k.workspace_mutex);
  if (!k.workspace) k.workspace.emplace(static_cast<std::size_t>(k.workspace_bytes));
  return static_cast<unsigned char*>(k.workspace->data());
}

// Launches the kernels of plan `k` in order on `stream`: the def's tensors from `args`, the
// temporaries at their offsets in the workspace.
LaunchStats launch_plan(const CompiledKernel::Impl& k, const std::vector<Arg>& args, void* stream, void* workspace) {
  const api::PreparedLaunch launch = api::prepare_launch(k.metadata, k.bound_sizes, args);
  std::map<std::string, Arg> tensors;
  for (std::size_t i = 0; i < launch.values.size(); ++i) {
    const api::ParameterValue& v = launch.values[i];
    if (v.is_pointer)
      tensors.emplace(k.metadata.parameters[i].name, Arg::buffer(v.pointer, std::max(v.required_bytes, v.given_bytes)));
  }
  std::vector<unsigned char> host_workspace;
  unsigned char* base = plan_workspace(k, workspace, host_workspace);
  LaunchStats total;
  for (const CompiledKernel& kernel : k.plan_kernels) {
    std::vector<Arg> kernel_args;
    for (const ParameterInfo& p : kernel.info().parameters) {
      const PlanTemporary* t = nullptr;
      for (const PlanTemporary& temporary : k.temporaries)
        if (temporary.tensor == p.name) t = &temporary;
      if (t) kernel_args.push_back(Arg::buffer(base + t->offset, static_cast<std::size_t>(t->bytes)));
      else kernel_args.push_back(tensors.at(p.name));
    }
    add_stats(total, kernel.launch(kernel_args, stream));
  }
  return total;
}

}  // namespace

std::string to_string(Backend backend) {
  switch (backend) {
    case Backend::cuda: return "cuda";
    case Backend::emu: return "emu";
    case Backend::cpu: return "cpu";
  }
  return "cuda";
}

std::string to_string(CacheStatus status) {
  switch (status) {
    case CacheStatus::disabled: return "disabled";
    case CacheStatus::miss: return "miss";
    case CacheStatus::memory_hit: return "memory_hit";
    case CacheStatus::disk_hit: return "disk_hit";
    case CacheStatus::rebuilt_corrupt: return "rebuilt_corrupt";
  }
  return "disabled";
}

Backend CompiledKernel::backend() const { return impl_->backend; }
const std::string& CompiledKernel::source() const { return impl_->source; }
const std::string& CompiledKernel::ptx() const { return impl_->ptx; }
const std::vector<char>& CompiledKernel::cubin() const { return impl_->cubin; }
const std::string& CompiledKernel::log() const { return impl_->log; }
const KernelInfo& CompiledKernel::info() const { return impl_->info; }
CacheStatus CompiledKernel::cache_status() const { return impl_->cache_status; }
std::size_t CompiledKernel::kernel_count() const { return impl_->plan_kernels.empty() ? 1 : impl_->plan_kernels.size(); }
std::vector<CompiledKernel> CompiledKernel::kernels() const {
  return impl_->plan_kernels.empty() ? std::vector<CompiledKernel>{*this} : impl_->plan_kernels;
}
const std::string& CompiledKernel::plan() const { return impl_->plan_text; }
std::int64_t CompiledKernel::workspace_bytes() const { return impl_->workspace_bytes; }

std::string CompiledKernel::metadata_json() const {
  if (impl_->plan_kernels.empty()) return to_json(impl_->metadata).dump(2) + "\n";
  nlohmann::json sidecar = nlohmann::json::array();
  for (const CompiledKernel& k : impl_->plan_kernels) sidecar.push_back(to_json(k.impl_->metadata));
  sidecar.push_back(impl_->plan_sidecar);
  return sidecar.dump(2) + "\n";
}

void CompiledKernel::forget_constants() const {
  if (impl_->cpu) impl_->cpu->forget_constants();
}

LaunchStats CompiledKernel::launch(const std::vector<Arg>& args, void* stream, void* workspace) const {
  if (!impl_->plan_kernels.empty()) return launch_plan(*impl_, args, stream, workspace);
  const api::PreparedLaunch launch = api::prepare_launch(impl_->metadata, impl_->bound_sizes, args);
  if (impl_->backend == Backend::emu) return launch_emulated(*impl_, launch);
  if (impl_->backend == Backend::cpu) {
    std::vector<void*> buffers;
    for (const api::ParameterValue& v : launch.values)
      if (v.is_pointer) buffers.push_back(const_cast<void*>(v.pointer));
    (*impl_->cpu)(buffers.data());
    return LaunchStats{};
  }
#if POLYFUSE_HAVE_CUDA
  std::vector<std::uint64_t> storage(launch.values.size());  // a device pointer or an int, each
  std::vector<tma::TensorMapBytes> maps(launch.values.size());  // or a tensor map
  std::vector<void*> params(launch.values.size());
  for (std::size_t i = 0; i < launch.values.size(); ++i) {
    const api::ParameterValue& v = launch.values[i];
    if (!impl_->metadata.parameters[i].tma_box.empty()) {
      maps[i] = api::tensor_map_argument(impl_->metadata.parameters[i], v, tma::Target::gpu);
      params[i] = maps[i].bytes;
      continue;
    }
    if (v.is_pointer) {
      const void* p = v.pointer;
      std::memcpy(&storage[i], &p, sizeof p);
    } else {
      std::memcpy(&storage[i], &v.value, sizeof v.value);
    }
    params[i] = &storage[i];
  }
  std::array<unsigned, 3> grid = launch.grid;
  if (impl_->metadata.persistent) grid[0] = persistent_grid(impl_->metadata, grid[0], cuda::current_device_sms());
  impl_->loaded->launch(grid, launch.block, static_cast<CUstream>(stream), params.data(),
                        static_cast<unsigned>(impl_->metadata.cluster_x));
  return LaunchStats{};
#else
  (void)stream;
  throw NoDeviceError("no CUDA device: polyfuse was built without the CUDA toolkit");
#endif
}

LaunchStats CompiledKernel::run_on_host(const std::vector<Arg>& args) const {
  if (impl_->backend != Backend::cuda) return launch(args);
  // Check the host arguments first (counts, sizes), then mirror each tensor on the device.
  const api::PreparedLaunch host = api::prepare_launch(impl_->metadata, impl_->bound_sizes, args);
  std::vector<DeviceBuffer> buffers;
  std::vector<Arg> device_args;
  for (std::size_t i = 0; i < host.values.size(); ++i) {
    if (!host.values[i].is_pointer) {
      device_args.push_back(args[i]);
      continue;
    }
    if (args[i].bytes() == 0)
      throw ArgumentError("kernel '" + impl_->metadata.kernel + "': run_on_host needs the byte size of argument " +
                          std::to_string(i + 1) + " (" + impl_->metadata.parameters[i].name +
                          "): pass a std::vector or Arg::buffer(pointer, bytes)");
    buffers.emplace_back(host.values[i].required_bytes);
    buffers.back().upload(args[i].data(), host.values[i].required_bytes);
    device_args.push_back(Arg::buffer(buffers.back().data(), buffers.back().bytes()));
  }
  launch(device_args);
  synchronize();
  std::size_t b = 0;
  for (std::size_t i = 0; i < host.values.size(); ++i) {
    if (!host.values[i].is_pointer) continue;
    if (impl_->metadata.parameters[i].kind == KernelParameter::Kind::output)
      buffers[b].download(const_cast<void*>(args[i].data()), host.values[i].required_bytes);
    ++b;
  }
  return LaunchStats{};
}

namespace api {

ParameterInfo parameter_info(const KernelParameter& p) {
  ParameterInfo q;
  q.name = p.name;
  q.kind = p.kind == KernelParameter::Kind::input    ? ParameterInfo::Kind::input
           : p.kind == KernelParameter::Kind::output ? ParameterInfo::Kind::output
                                                     : ParameterInfo::Kind::size;
  q.c_type = p.c_type;
  if (p.kind != KernelParameter::Kind::size) {
    q.element = std::string(to_string(p.element));
    q.shape = p.shape;
    q.element_bytes = size_in_bytes(p.element);
  }
  return q;
}

CompiledKernel make_compiled_kernel(Backend backend, std::string source, LaunchMetadata metadata,
                                    std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options,
                                    std::string plan_text) {
  auto k = std::make_shared<CompiledKernel::Impl>();
  k->backend = backend;
  k->plan_text = std::move(plan_text);
  k->source = std::move(source);
  k->metadata = std::move(metadata);
  k->info = kernel_info(k->metadata);
  k->bound_sizes = std::move(bound_sizes);
  if (backend == Backend::emu) {
    try {
      k->emulated = emu::Module::compile(k->source, emulator_build_options(), {k->metadata.kernel});
    } catch (const emu::EmulationError& e) {
      throw CompileError(std::string("polyfuse: the emulator build of kernel '") + k->metadata.kernel +
                             "' failed:\n" + e.what(),
                         e.what(), "");
    }
    return CompiledKernel(std::move(k));
  }
#if POLYFUSE_HAVE_CUDA
  cuda::NvrtcOptions nvrtc;
  nvrtc.arch = k->metadata.arch;
  nvrtc.fast_math = options.fast_math;
  nvrtc.line_info = options.line_info;
  const cuda::CacheLookup lookup = cuda::KernelCache::global().compile(k->source, nvrtc, k->metadata.kernel, options.use_cache);
  k->ptx = lookup.output->ptx;
  k->cubin = lookup.output->cubin;
  k->log = lookup.output->log;
  k->cache_status = status_of(lookup.outcome);
  k->loaded = std::make_unique<cuda::LoadedKernel>(lookup.output, k->metadata.kernel, k->metadata.dynamic_shared_bytes);
  return CompiledKernel(std::move(k));
#else
  throw Error("polyfuse: built without the CUDA toolkit: only Backend::emu and Backend::cpu are available");
#endif
}

std::vector<CompiledKernel> make_compiled_kernels(Backend backend, const std::string& source,
                                                  const std::vector<LaunchMetadata>& metadata,
                                                  const std::map<std::string, std::int64_t>& bound_sizes,
                                                  const CompileOptions& options) {
  std::vector<CompiledKernel> kernels;
  if (backend != Backend::emu) {
    for (const LaunchMetadata& m : metadata) kernels.push_back(make_compiled_kernel(backend, source, m, bound_sizes, options));
    return kernels;
  }
  std::vector<std::string> names;
  for (const LaunchMetadata& m : metadata) names.push_back(m.kernel);
  std::optional<emu::Module> module;
  try {
    module = emu::Module::compile(source, emulator_build_options(), names);
  } catch (const emu::EmulationError& e) {
    throw CompileError(std::string("polyfuse: the emulator build of the kernels of '") + names.front() + "' failed:\n" +
                           e.what(),
                       e.what(), "");
  }
  for (const LaunchMetadata& m : metadata) {
    auto k = std::make_shared<CompiledKernel::Impl>();
    k->backend = backend;
    k->source = source;
    k->metadata = m;
    k->info = kernel_info(m);
    k->bound_sizes = bound_sizes;
    k->emulated = module;
    kernels.push_back(CompiledKernel(std::move(k)));
  }
  return kernels;
}

CompiledKernel make_compiled_cpu(const std::string& source, LaunchMetadata signature,
                                 std::map<std::string, std::int64_t> bound_sizes) {
  auto k = std::make_shared<CompiledKernel::Impl>();
  k->backend = Backend::cpu;
  k->source = source;
  k->metadata = std::move(signature);
  k->info = kernel_info(k->metadata);
  k->bound_sizes = std::move(bound_sizes);
  try {
    k->cpu = cpu_runtime::CpuModule::load(source, k->metadata.kernel);
  } catch (const std::runtime_error& e) {
    throw CompileError(std::string("polyfuse: the CPU build of '") + k->metadata.kernel + "' failed:\n" + e.what(),
                       e.what(), "");
  }
  k->cache_status = k->cpu->from_cache() ? CacheStatus::disk_hit : CacheStatus::miss;
  return CompiledKernel(std::move(k));
}

CompiledKernel make_compiled_plan(Backend backend, const std::string& source, PlanParts parts,
                                  std::map<std::string, std::int64_t> bound_sizes, const CompileOptions& options) {
  auto k = std::make_shared<CompiledKernel::Impl>();
  k->plan_kernels = make_compiled_kernels(backend, source, parts.kernels, bound_sizes, options);
  k->backend = backend;
  k->source = source;
  k->log = k->plan_kernels.front().log();
  k->cache_status = k->plan_kernels.front().cache_status();
  k->metadata = std::move(parts.signature);
  k->info = kernel_info(k->metadata);
  k->bound_sizes = std::move(bound_sizes);
  k->plan_text = std::move(parts.text);
  k->temporaries = std::move(parts.temporaries);
  k->workspace_bytes = parts.workspace_bytes;
  k->plan_sidecar = std::move(parts.sidecar);
  return CompiledKernel(std::move(k));
}

}  // namespace api
}  // namespace polyfuse
