// The state behind polyfuse::CompiledKernel (only the API's own source files include this:
// its layout depends on POLYFUSE_HAVE_CUDA, a private definition of the API library).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/launch_metadata.h"
#include "polyfuse/compiled_kernel.h"
#include "polyfuse/device.h"
#include "polyfuse_emu/module.h"
#include "runtime/cpu/cpu_module.h"
#include "schedule/program_plan.h"

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
  LaunchMetadata metadata;  // a plan: the def's signature, named after the plan's launcher
  KernelInfo info;
  CacheStatus cache_status = CacheStatus::disabled;
  std::map<std::string, std::int64_t> bound_sizes;
#if POLYFUSE_HAVE_CUDA
  std::unique_ptr<cuda::LoadedKernel> loaded;  // cuda backend
#endif
  std::optional<emu::Module> emulated;  // emu backend
  std::optional<cpu_runtime::CpuModule> cpu;  // cpu backend
  std::string plan_text;                // --emit=plan

  // A plan (plan_kernels not empty): its kernels in launch order, the temporaries in the
  // workspace, and its sidecar entry (codegen/cuda_plan.h).
  std::vector<CompiledKernel> plan_kernels;
  std::vector<PlanTemporary> temporaries;
  std::int64_t workspace_bytes = 0;
  nlohmann::json plan_sidecar;
  // cuda: the workspace of launches given none, allocated at the first and reused.
  mutable std::mutex workspace_mutex;
  mutable std::optional<DeviceBuffer> workspace;
};

}  // namespace polyfuse
