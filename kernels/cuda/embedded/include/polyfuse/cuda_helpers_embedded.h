// The kernels/cuda helper headers as strings, generated at build time (target
// polyfuse_cuda_helpers_embedded), so that NVRTC and the code generator need no files at
// run time.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace polyfuse::cuda_helpers {

// (file name, text) of every helper header, in umbrella order (polyfuse_cuda.cuh last).
// Suitable as NVRTC headers: a source may #include "polyfuse_cuda.cuh".
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_headers();

// The text of one header by file name; empty if there is none.
std::string_view embedded_header(std::string_view name);

// All helper headers concatenated in umbrella order, without their local #include lines
// and #pragma once: what a generated .cu embeds to be self-contained.
std::string_view amalgamation();

}  // namespace polyfuse::cuda_helpers
