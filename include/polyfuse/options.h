// Options of TensorProgram::compile: the backend, the target architecture, the tile
// choices of the GPU path, NVRTC flags and the cache.
#pragma once

#include <string>

namespace polyfuse {

// Where a compiled kernel runs.
enum class Backend {
  cuda,  // NVRTC → cubin, launched with the CUDA driver API on device pointers
  emu,   // the same CUDA source built for the CPU emulator, launched on host pointers
};

// "cuda" or "emu".
std::string to_string(Backend backend);

// Every choice of TensorProgram::compile. Empty strings and zeros mean "the default".
struct CompileOptions {
  Backend backend = Backend::cuda;
  std::string arch;     // "sm_80", "sm_86", "sm_89", "sm_90"; empty: the present GPU's, else sm_90
  std::string block;    // block tile M×N×K, e.g. "128x128x32"; empty: the arch's default
  std::string warp;     // warp tile, e.g. "64x64x32"
  std::string mma;      // "m16n8k16", "16x16x8" or "32x32x8"
  int split_k = 0;      // 1, 2 or 4 warps splitting k; 0: default
  int stages = 0;       // shared-memory buffers per operand (1 or 2); 0: default
  bool fast_math = false;  // NVRTC --use_fast_math (off: results match the emulator's math)
  bool line_info = false;  // NVRTC -lineinfo (for profilers)
  bool use_cache = true;   // memory and disk cache; POLYFUSE_DISABLE_CACHE=1 also turns it off
};

}  // namespace polyfuse
