#include "runtime/cuda/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "polyfuse/errors.h"

namespace polyfuse::cuda {
namespace {

struct LoadedDriver {
  DriverApi api;
  bool ok = false;
  std::string why;
};

template <class F> bool resolve(void* library, const char* name, F& function, std::string& why) {
  function = reinterpret_cast<F>(dlsym(library, name));
  if (!function && why.empty()) why = std::string("libcuda has no symbol ") + name;
  return function != nullptr;
}

LoadedDriver load() {
  LoadedDriver d;
  const char* override_path = std::getenv("POLYFUSE_LIBCUDA");
  const std::string path = override_path && *override_path ? override_path : "libcuda.so.1";
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    d.why = "the CUDA driver could not be loaded (" + (error ? std::string(error) : path) + ")";
    return d;
  }
  DriverApi& a = d.api;
  std::string& why = d.why;
  // The first symbol missing names the reason; nothing after it is needed then.
  bool all = resolve(library, "cuInit", a.init, why) && resolve(library, "cuDriverGetVersion", a.driver_get_version, why) &&
             resolve(library, "cuDeviceGetCount", a.device_get_count, why) && resolve(library, "cuDeviceGet", a.device_get, why) &&
             resolve(library, "cuDeviceGetAttribute", a.device_get_attribute, why) &&
             resolve(library, "cuDeviceGetName", a.device_get_name, why) &&
             resolve(library, "cuDevicePrimaryCtxRetain", a.primary_ctx_retain, why) &&
             resolve(library, "cuCtxGetCurrent", a.ctx_get_current, why) &&
             resolve(library, "cuCtxSetCurrent", a.ctx_set_current, why) &&
             resolve(library, "cuCtxGetDevice", a.ctx_get_device, why) &&
             resolve(library, "cuCtxSynchronize", a.ctx_synchronize, why) &&
             resolve(library, "cuStreamSynchronize", a.stream_synchronize, why) &&
             resolve(library, "cuModuleLoadData", a.module_load_data, why) &&
             resolve(library, "cuModuleUnload", a.module_unload, why) &&
             resolve(library, "cuModuleGetFunction", a.module_get_function, why) &&
             resolve(library, "cuFuncSetAttribute", a.func_set_attribute, why) &&
             resolve(library, "cuLaunchKernel", a.launch_kernel, why) &&
             resolve(library, "cuLaunchKernelEx", a.launch_kernel_ex, why) &&
             resolve(library, "cuGetErrorName", a.get_error_name, why) &&
             resolve(library, "cuGetErrorString", a.get_error_string, why) &&
             resolve(library, "cuMemAlloc_v2", a.mem_alloc, why) && resolve(library, "cuMemFree_v2", a.mem_free, why) &&
             resolve(library, "cuMemcpyHtoD_v2", a.memcpy_htod, why) &&
             resolve(library, "cuMemcpyDtoH_v2", a.memcpy_dtoh, why);
  if (!all) return d;
  std::string optional;
  resolve(library, "cuEventCreate", a.event_create, optional);
  resolve(library, "cuEventDestroy_v2", a.event_destroy, optional);
  resolve(library, "cuEventRecord", a.event_record, optional);
  resolve(library, "cuEventSynchronize", a.event_synchronize, optional);
  if (!resolve(library, "cuEventElapsedTime_v2", a.event_elapsed_time, optional))
    resolve(library, "cuEventElapsedTime", a.event_elapsed_time, optional);
  if (CUresult r = a.init(0); r != CUDA_SUCCESS) {
    const char* name = nullptr;
    a.get_error_name(r, &name);
    why = std::string("cuInit failed (") + (name ? name : std::to_string(r).c_str()) + ")";
    return d;
  }
  int count = 0;
  if (a.device_get_count(&count) != CUDA_SUCCESS || count == 0) {
    why = "the driver reports no device";
    return d;
  }
  d.ok = true;
  return d;
}

const LoadedDriver& loaded() {
  static const LoadedDriver d = load();
  return d;
}

}  // namespace

const DriverApi* driver(std::string* why) {
  const LoadedDriver& d = loaded();
  if (!d.ok && why) *why = d.why;
  return d.ok ? &d.api : nullptr;
}

const DriverApi& require_driver() {
  std::string why;
  const DriverApi* api = driver(&why);
  if (!api) throw NoDeviceError("no CUDA device: " + why);
  return *api;
}

void check(CUresult result, const char* call, const std::string& kernel) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (const DriverApi* api = driver()) {
    api->get_error_name(result, &name);
    api->get_error_string(result, &text);
  }
  std::string message = std::string("polyfuse: ") + call + " failed";
  if (!kernel.empty()) message += " for kernel '" + kernel + "'";
  message += ": " + std::string(name ? name : "CUresult " + std::to_string(result));
  if (text) message += " (" + std::string(text) + ")";
  throw CudaError(message, call, static_cast<int>(result));
}

CUcontext ensure_context() {
  const DriverApi& api = require_driver();
  CUcontext context = nullptr;
  check(api.ctx_get_current(&context), "cuCtxGetCurrent");
  if (context) return context;
  CUdevice device = 0;
  check(api.device_get(&device, 0), "cuDeviceGet");
  check(api.primary_ctx_retain(&context, device), "cuDevicePrimaryCtxRetain");
  check(api.ctx_set_current(context), "cuCtxSetCurrent");
  return context;
}

std::optional<int> device_compute_capability() {
  const DriverApi* api = driver();
  if (!api) return std::nullopt;
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (api->device_get(&device, 0) != CUDA_SUCCESS ||
      api->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      api->device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
    return std::nullopt;
  return major * 10 + minor;
}

unsigned current_device_sms() {
  const DriverApi& api = require_driver();
  ensure_context();
  CUdevice device = 0;
  int sms = 0;
  check(api.ctx_get_device(&device), "cuCtxGetDevice");
  check(api.device_get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device),
        "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
  return static_cast<unsigned>(sms);
}

std::string device_description() {
  std::string why;
  const DriverApi* api = driver(&why);
  if (!api) return "no CUDA device: " + why;
  CUdevice device = 0;
  char name[256] = {};
  if (api->device_get(&device, 0) != CUDA_SUCCESS || api->device_get_name(name, sizeof name, device) != CUDA_SUCCESS)
    return "CUDA device 0";
  const std::optional<int> cc = device_compute_capability();
  return std::string(name) + (cc ? " (sm_" + std::to_string(*cc) + ")" : "");
}

}  // namespace polyfuse::cuda
