#include "runtime/cuda/cuda_module.h"

#include "runtime/cuda/driver.h"

namespace polyfuse::cuda {

LoadedKernel::LoadedKernel(std::shared_ptr<const NvrtcOutput> code, std::string kernel, int dynamic_shared_bytes)
    : code_(std::move(code)), kernel_(std::move(kernel)), dynamic_shared_bytes_(dynamic_shared_bytes) {}

LoadedKernel::~LoadedKernel() {
  // Modules are unloaded only while their context is current and the driver is up;
  // errors (a context destroyed by the application) are ignored.
  const DriverApi* api = driver();
  if (!api) return;
  CUcontext current = nullptr;
  if (api->ctx_get_current(&current) != CUDA_SUCCESS) return;
  for (const auto& [context, module_function] : loaded_)
    if (context == current) api->module_unload(module_function.first);
}

CUfunction LoadedKernel::function() const {
  const DriverApi& api = require_driver();
  const CUcontext context = ensure_context();
  std::lock_guard lock(mutex_);
  if (auto it = loaded_.find(context); it != loaded_.end()) return it->second.second;
  CUmodule module = nullptr;
  CUresult r = api.module_load_data(&module, code_->cubin.data());
  if ((r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE) && !code_->ptx.empty())
    r = api.module_load_data(&module, code_->ptx.c_str());
  check(r, "cuModuleLoadData", kernel_);
  CUfunction function = nullptr;
  check(api.module_get_function(&function, module, kernel_.c_str()), "cuModuleGetFunction", kernel_);
  if (dynamic_shared_bytes_ > 48 * 1024)
    check(api.func_set_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_shared_bytes_),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", kernel_);
  loaded_.emplace(context, std::make_pair(module, function));
  return function;
}

void LoadedKernel::launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block, CUstream stream,
                          void** params, unsigned cluster_x) const {
  const CUfunction f = function();
  if (cluster_x > 1) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster_x;
    attribute.value.clusterDim.y = 1;
    attribute.value.clusterDim.z = 1;
    CUlaunchConfig config{};
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = block[0];
    config.blockDimY = block[1];
    config.blockDimZ = block[2];
    config.sharedMemBytes = static_cast<unsigned>(dynamic_shared_bytes_);
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    check(require_driver().launch_kernel_ex(&config, f, params, nullptr), "cuLaunchKernelEx", kernel_);
    return;
  }
  check(require_driver().launch_kernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                       static_cast<unsigned>(dynamic_shared_bytes_), stream, params, nullptr),
        "cuLaunchKernel", kernel_);
}

}  // namespace polyfuse::cuda
