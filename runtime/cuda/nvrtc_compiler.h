// In-process compilation of generated CUDA sources with NVRTC: PTX and cubin for one
// real architecture. The kernels/cuda helper headers and the CUDA fp16/bf16 headers are
// given to NVRTC from memory, so no file is read.
//
// Flags: --gpu-architecture=sm_XX -std=c++17, plus --use_fast_math and -lineinfo on
// request. Fast math is off by default so that GPU results match the emulator's (which
// computes exp/tanh/division exactly); generated kernels are bound by tensor-core and
// memory throughput, not by the few transcendental ops of their epilogues.
#pragma once

#include <string>
#include <vector>

namespace polyfuse::cuda {

struct NvrtcOptions {
  std::string arch = "sm_90";  // a real architecture: sm_80, sm_86, sm_89, sm_90, sm_90a
  bool fast_math = false;
  bool line_info = false;
  bool ptxas_verbose = false;  // --ptxas-options=-v: registers, spills, shared memory in the log (autotuner)
};

// What NVRTC produced for one source.
struct NvrtcOutput {
  std::string ptx;          // virtual-architecture code (compute_XX), for JIT on newer GPUs
  std::vector<char> cubin;  // machine code for the requested sm_XX
  std::string log;          // warnings (errors throw)
};

// The NVRTC command-line flags for `options`, in the order they are passed.
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);

// The NVRTC library's version, e.g. "13.0".
std::string nvrtc_version();

// Compiles `source`. On failure throws polyfuse::CompileError whose message names
// `kernel`, the file the source was written to (under $TMPDIR; the NVRTC log's line
// references point into it), the log, and each offending source line.
NvrtcOutput nvrtc_compile(const std::string& source, const NvrtcOptions& options, const std::string& kernel);

}  // namespace polyfuse::cuda
