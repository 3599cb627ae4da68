// The state behind polyfuse::CompiledKernel (only the API's own source files include this:
// its layout depends on POLYFUSE_HAVE_CUDA, a private definition of the API library).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "codegen/launch_metadata.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse_emu/module.h"

#if POLYFUSE_HAVE_CUDA
#include "runtime/cuda/cuda_module.h"
#include "runtime/cuda/nvrtc_compiler.h"
#endif

namespace polyfuse {

struct CompiledKernel::Impl {
  Backend backend = Backend::cuda;
  std::string source;
  std::string ptx;
  std::vector<char> cubin;
  std::string log;
  LaunchMetadata metadata;
  KernelInfo info;
  CacheStatus cache_status = CacheStatus::disabled;
  std::map<std::string, std::int64_t> bound_sizes;
#if POLYFUSE_HAVE_CUDA
  std::unique_ptr<cuda::LoadedKernel> loaded;  // cuda backend
#endif
  std::optional<emu::Module> emulated;  // emu backend
};

}  // namespace polyfuse
