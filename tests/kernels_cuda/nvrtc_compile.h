// In-process NVRTC compilation of CUDA sources that use the kernels/cuda helpers (their
// headers and the CUDA fp16/bf16 headers are embedded: no include folder is needed, so
// the tests run where the toolkit lives elsewhere, e.g. from the GPU check kit).
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

// The text of tests/kernels_cuda/<file> (under the data root, runtime/paths); if it cannot be
// read, a source whose compile fails with an #error naming the file.
std::string kernels_source(const std::string& file);
// kernels_source("test_kernels.cu").
std::string test_kernels_source();

// Every "N bytes spill stores, M bytes spill loads" line of a log that is not zero.
std::vector<std::string> nonzero_spills(const std::string& log);

// Every "N bytes stack frame" line of a log that is not zero (local memory: a register
// array indexed at run time, or spills).
std::vector<std::string> nonzero_stack_frames(const std::string& log);

// Every ptxas line of a log that is a warning or carries a diagnostic code, e.g. "(C7511)
// Potential Performance Loss: wgmma.mma_async instructions are serialized ..." (CUDA 13
// reports those as "ptxas info").
std::vector<std::string> ptxas_diagnostics(const std::string& log);

}  // namespace pft_test
