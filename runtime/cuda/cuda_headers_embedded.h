// The CUDA toolkit headers generated kernels include (cuda_fp16.h, cuda_bf16.h and their
// .hpp parts), embedded at build time from the toolkit polyfuse was built with.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace polyfuse::cuda {

// (file name, text) pairs, usable as NVRTC headers.
const std::vector<std::pair<std::string, std::string>>& embedded_cuda_headers();

}  // namespace polyfuse::cuda
