#include "bench/gpu/environment.h"

#include <cuda_runtime.h>

#include <dlfcn.h>

#include <ctime>

#include "bench/gpu/baselines_cublas.h"
#include "bench/gpu/baselines_cudnn.h"
#include "polyfuse/device.h"

namespace polyfuse::bench {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string nvidia_driver_version() {
  // NVML through dlopen: nothing to link, and no failure where it is missing.
  void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml) return "";
  using Init = int (*)();
  using GetVersion = int (*)(char*, unsigned);
  auto init = reinterpret_cast<Init>(dlsym(nvml, "nvmlInit_v2"));
  auto get_version = reinterpret_cast<GetVersion>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<Init>(dlsym(nvml, "nvmlShutdown"));
  std::string version;
  if (init && get_version && init() == 0) {
    char text[96] = {};
    if (get_version(text, sizeof text) == 0) version = text;
    if (shutdown) shutdown();
  }
  dlclose(nvml);
  return version;
}

RunEnvironment query_environment() {
  RunEnvironment environment;
  environment.gpu = cuda_device_description();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const std::string nvidia = nvidia_driver_version();
  environment.driver = (nvidia.empty() ? "" : nvidia + " ") + "(CUDA " + cuda_version_text(driver) + ")";
  environment.cuda_runtime = cuda_version_text(runtime);
  environment.cublas = cublas_version();
  environment.cudnn = cudnn_version();
  environment.date = utc_now();
  return environment;
}

}  // namespace polyfuse::bench
