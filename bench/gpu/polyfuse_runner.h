// polyfuse's side of the benchmark: each idiom's .tc program (idioms.h) compiled through
// the runtime API (TensorProgram::parse, bind, compile with a TileConfig), many kernels
// at once on worker threads (NVRTC is the slow part), and launched on a stream.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/gpu/idioms.h"
#include "bench/gpu/sizes.h"
#include "bench/gpu/tile_configs.h"
#include "polyfuse/polyfuse.h"

namespace polyfuse::bench {

// One kernel to compile, and its result.
struct CompileJob {
  const Idiom* idiom = nullptr;  // a GEMM idiom's program (tc_source), or null: `source`
  DType dtype = DType::f16;
  ProblemSize size;       // bound into the program (batch only for batched idioms)
  TileConfig config;
  std::string arch;       // "sm_90"
  std::optional<CompiledKernel> kernel;  // set when it compiled
  std::string error;      // else the compiler's message (first line)
  // Without an idiom: the program (a convolution's), its name and its sizes' values.
  std::string source;
  std::string name;
  std::vector<std::pair<std::string, std::int64_t>> bindings;
};

// The CompileOptions of `config` for `arch` (cuda backend, cache on).
CompileOptions compile_options(const TileConfig& config, const std::string& arch);

// Compiles one job (catches polyfuse::Error into job.error).
void compile_job(CompileJob& job);

// The autotuner's winner for `job`'s program, sizes and arch (TensorProgram::autotune, timed on
// the GPU, cached), compiled; `config` receives "<winner> (timed|static)". Throws polyfuse::Error.
CompiledKernel compile_autotuned(const CompileJob& job, std::string& config);

// Compiles every job on `threads` worker threads (0: one per hardware thread); calls
// `progress(done, total)` from the calling thread about once a second (may be empty).
void compile_jobs(std::vector<CompileJob>& jobs, int threads,
                  const std::function<void(size_t, size_t)>& progress = {});

// Queues `kernel` on `stream` with device pointers by tensor name (A, B, E, F, bias, D;
// I, F, bias, O); a plan of several kernels uses its own workspace.
// Throws polyfuse::Error (ArgumentError, CudaError).
void launch_polyfuse(const CompiledKernel& kernel, const std::function<void*(const std::string&)>& pointer,
                     void* stream);

}  // namespace polyfuse::bench
