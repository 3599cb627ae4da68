// The run's environment for the CSV and the summary: GPU, driver, CUDA runtime, cuBLAS
// and cuDNN versions, the date. Only called once a device is known to be present.
#pragma once

#include <string>

#include "bench/gpu/results.h"

namespace polyfuse::bench {

// Fills every field of RunEnvironment except the method fields (from the options) and
// `command`: GPU name from polyfuse::cuda_device_description(), versions from
// NVML and cudaDriverGetVersion ("580.65.06 (CUDA 13.0)"), cudaRuntimeGetVersion / cublasGetProperty / cudnnGetVersion.
RunEnvironment query_environment();

// "13.0" from a CUDA version number such as 13000.
std::string cuda_version_text(int version);

// The NVIDIA driver's version ("580.65.06") from NVML (loaded with dlopen), else "".
std::string nvidia_driver_version();

// The current time in UTC, "2025-01-31T12:00:00Z".
std::string utc_now();

}  // namespace polyfuse::bench
