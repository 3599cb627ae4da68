// Options of TensorProgram::compile: the backend, the target architecture, the tile
// choices of the GPU path, NVRTC flags and the cache.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "polyfuse/gpu_target.h"

namespace polyfuse {

// Where a compiled kernel runs.
enum class Backend {
  cuda,  // NVRTC → cubin, launched with the CUDA driver API on device pointers
  emu,   // the same CUDA source built for the CPU emulator, launched on host pointers
  cpu,   // the CPU target: C++ over BRGEMM kernels (`polyfuse compile --target=cpu`), built by
         // the system compiler into a cached shared object and called on host pointers. Every
         // size must be bound; the GPU options below (arch .. line_info) are refused.
};

// "cuda", "emu" or "cpu".
std::string to_string(Backend backend);

// Every choice of TensorProgram::compile. Unset values and zeros mean "the default".
// Values given as text (a configuration file, a command line) go through the parsers of
// polyfuse/gpu_target.h, the ones `polyfuse compile` uses for its flags.
struct CompileOptions {
  Backend backend = Backend::cuda;
  std::optional<Arch> arch;        // unset: the present GPU's (default_arch())
  std::optional<TileShape> block;  // block tile M×N×K; unset: 128x128x32
  std::optional<TileShape> warp;   // warp tile; unset: min(64, block) in M and N, block K / split_k
                                   // in K, shrunk (N, then M) until a fused kernel's registers fit
  std::optional<MmaShape> mma;     // unset: m16n8k16
  int split_k = 0;      // 1, 2 or 4 warps splitting k; 0: default
  int stages = 0;       // shared-memory stages per operand (1..5, the cp.async ring); 0: default (2)
  std::optional<int> group;  // block order: tile rows per group (>= 1; 1: row-major); unset: 8 when
                             // the grid has at least 8 tile rows (or an unbound count), else 1
  // The sm_90a warp-specialised kernel's consumer warpgroups: on each tile together
  // (cooperative) or on alternate tiles (pingpong); unset: cooperative (faster on an H200 in
  // every kernel timed). Refused for a kernel without consumer warpgroups.
  std::optional<ConsumerSchedule> consumer_schedule;
  // The sm_90a warp-specialised kernel's thread-block cluster (output tiles sharing an operand
  // tile by TMA multicast): 2x1 shares B, 1x2 shares A; unset: 1x1, none. Refused for any other
  // kernel, and for one whose operands are not all loaded by TMA.
  std::optional<ClusterShape> cluster;
  // Matmuls with f32 operands: tf32 (tensor cores, TF32 operands), 3xtf32 (tensor cores,
  // split precision, close to f32) or f32 (exact, CUDA cores); unset: tf32. Refused by
  // Backend::cpu (it computes f32 matmuls exactly).
  std::optional<F32Matmul> f32_matmul;
  bool fast_math = false;  // NVRTC --use_fast_math (off: results match the emulator's math)
  bool line_info = false;  // NVRTC -lineinfo (for profilers)
  bool use_cache = true;   // memory and disk cache; POLYFUSE_DISABLE_CACHE=1 also turns it off
  // Backend::cpu: OpenMP threads of the generated loops (a num_threads clause; >= 1). Unset:
  // every core, or OMP_NUM_THREADS. Threads split output blocks, never a reduction, so the
  // results do not depend on it. Refused on the GPU backends.
  std::optional<int> threads;
  // Backend::cpu: inputs whose values do not change between launches with the same pointer (a
  // network's weights), by name. The packed copy the generated code makes of one (a GEMM's B, a
  // convolution's filter panels) is kept between launches and made again only for another
  // pointer, or after CompiledKernel::forget_constants() (`polyfuse compile --constant`). A name
  // that is not an input of the def is refused; so is the option on the GPU backends.
  std::vector<std::string> constant_inputs;
  // Backend::cpu: the blocks of every blocked stage, mc x nc x kc (mc x nc output blocks, what
  // the threads split, and kc-deep slices of each block's reduction: one BRGEMM batch); unset:
  // from the caches (`polyfuse compile --cpu-block`). A parallel stage still evens its row
  // blocks out over the threads. Refused on the GPU backends.
  std::optional<TileShape> cpu_block;
  // Backend::cpu: a stage with fewer floating-point operations runs on the calling thread;
  // unset: 2^23 (about 55 microseconds of one core); 0: every stage of more than one block runs
  // on the threads (`--min-parallel-flops`). Refused on the GPU backends.
  std::optional<std::int64_t> min_parallel_flops;
  // Let the autotuner choose the tile options (polyfuse/autotune.h; TensorProgram::autotune
  // returns its report): compile() then compiles the winner. The tile options above must stay
  // unset (they are what it chooses); refused by Backend::cpu and for a def of several kernels.
  bool autotune = false;
};

}  // namespace polyfuse
