// The CUDA driver API, loaded with dlopen("libcuda.so.1") at first use so that programs
// linked with polyfuse start (and compile kernels) on machines without a driver; only
// launching needs one. POLYFUSE_LIBCUDA names another library file to load.
#pragma once

#include <cuda.h>

#include <optional>
#include <string>

namespace polyfuse::cuda {

// Entry points of libcuda used by polyfuse.
struct DriverApi {
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) primary_ctx_retain = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr;
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuMemAlloc_v2) mem_alloc = nullptr;
  decltype(&::cuMemFree_v2) mem_free = nullptr;
  decltype(&::cuMemcpyHtoD_v2) memcpy_htod = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
  // Events, for the autotuner's timings (runtime/api/autotune_timer.h); null when this driver
  // lacks one (they are resolved apart from the rest: launching does not need them).
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
  CUresult (*event_elapsed_time)(float*, CUevent, CUevent) = nullptr;  // _v2, else the first version
};

// The driver when it loaded and initialised with at least one device; else nullptr and
// `why` (if given) says why ("libcuda.so.1: cannot open shared object file", ...).
const DriverApi* driver(std::string* why = nullptr);

// The driver, or throws polyfuse::NoDeviceError ("no CUDA device: ...").
const DriverApi& require_driver();

// Throws polyfuse::CudaError naming `call`, `kernel` (if any) and the error, unless
// `result` is CUDA_SUCCESS.
void check(CUresult result, const char* call, const std::string& kernel = "");

// Makes a context current on this thread (keeps the current one, else device 0's
// primary context) and returns it.
CUcontext ensure_context();

// Compute capability (e.g. 90) of device 0, if there is one.
std::optional<int> device_compute_capability();

// The SM count of the current context's device (ensure_context's); throws like require_driver.
unsigned current_device_sms();

// "NVIDIA H100 80GB HBM3 (sm_90)" or "no CUDA device: <why>".
std::string device_description();

}  // namespace polyfuse::cuda
