// In-process NVRTC compilation of CUDA sources that use the kernels/cuda helpers (their
// headers come from polyfuse_cuda_helpers_embedded, no files needed).
#pragma once

#include <string>
#include <vector>

namespace pft_test {

struct NvrtcResult {
  bool ok = false;
  std::string log;          // compiler log (with ptxas -v lines when requested)
  std::vector<char> cubin;  // machine code for the requested real architecture
};

// Compiles `source` for `arch` ("sm_80", "sm_90"); ptxas_verbose adds --ptxas-options=-v.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& arch, bool ptxas_verbose);

// The text of tests/kernels_cuda/test_kernels.cu.
std::string test_kernels_source();

// Every "N bytes spill stores, M bytes spill loads" line of a log that is not zero.
std::vector<std::string> nonzero_spills(const std::string& log);

}  // namespace pft_test
