// One compiled kernel loaded into CUDA contexts and launched with the driver API.
//
// The cubin is loaded (cuModuleLoadData) into each context the kernel is launched in, the
// first time; if the GPU cannot run the cubin (a newer architecture), the PTX is loaded
// instead and JIT-compiled by the driver. Dynamic shared memory above 48 KiB is opted in
// with cuFuncSetAttribute once per context.
#pragma once

#include <cuda.h>

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/cuda/nvrtc_compiler.h"

namespace polyfuse::cuda {

class LoadedKernel {
 public:
  LoadedKernel(std::shared_ptr<const NvrtcOutput> code, std::string kernel, int dynamic_shared_bytes);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Launches on `stream` in the current context (device 0's primary one if none).
  // `params[i]` points at the value of parameter i (cuLaunchKernel's kernelParams); with
  // `cluster_x` > 1, in thread-block clusters of (cluster_x, 1, 1) blocks (cuLaunchKernelEx).
  // Throws NoDeviceError or CudaError naming the call and the kernel.
  void launch(std::array<unsigned, 3> grid, std::array<unsigned, 3> block, CUstream stream, void** params,
              unsigned cluster_x = 1) const;

  // The function in the current context (loading the module if needed).
  CUfunction function() const;

 private:
  std::shared_ptr<const NvrtcOutput> code_;
  std::string kernel_;
  int dynamic_shared_bytes_;
  mutable std::mutex mutex_;
  mutable std::map<CUcontext, std::pair<CUmodule, CUfunction>> loaded_;
};

}  // namespace polyfuse::cuda
