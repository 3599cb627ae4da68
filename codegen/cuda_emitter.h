// From a checked Program to one self-contained CUDA source: the kernels/cuda helpers
// embedded, one `extern "C" __global__` kernel that calls them (the isl AST of the
// mapped schedule, printed by c_ast_printer), a host launcher
// `polyfuse_launch_<def>(device pointers..., sizes..., cudaStream_t)` compiled only by
// nvcc (#ifdef __CUDACC__ and not under NVRTC), and the launch metadata.
//
//   EmittedKernel kernel = emit_cuda(program, options);
//   // nvcc -arch=sm_90 -c out.cu   compiles kernel.source with no extra flags
#pragma once

#include <string>
#include <vector>

#include "codegen/launch_metadata.h"
#include "codegen/register_tiles.h"
#include "frontend/program.h"
#include "schedule/gpu_options.h"
#include "schedule/gpu_pipeline.h"

namespace polyfuse {

// One generated kernel.
struct EmittedKernel {
  std::string source;         // the whole .cu text
  LaunchMetadata metadata;    // grid, block, shared memory, parameters
};

// Stages of the GPU path that can be printed instead of the CUDA source.
struct CudaEmitRequest {
  GpuOptions options;
  PassDumps dumps;            // --dump-after
  // How the kernels/cuda helpers reach the source: embedded (self-contained), an
  // `#include "polyfuse_cuda.cuh"` (shorter goldens), or nothing (a later kernel of the
  // same file, after one that embedded them).
  enum class Helpers { embed, include, omit } helpers = Helpers::embed;
};

// The text that brings the kernels/cuda helpers into a source, as `helpers` says.
std::string cuda_helpers_text(CudaEmitRequest::Helpers helpers);

// The kernel's parameters in launch order: a pointer per input and output tensor of
// `program` (signature order), then an int per unbound size.
std::vector<KernelParameter> kernel_parameters(const Program& program);

// The tensors each epilogue statement of `plan` reads, in plan order, and `chain_reads` (for the
// register tiles).
EpilogueReads epilogue_reads(const Program& program, const KernelPlan& plan, const std::vector<std::string>& chain_reads);

// The tensors the row chain fused into the matmul kernel of `whole` (fused_row_chain) reads;
// none without one.
std::vector<std::string> fused_chain_reads(const Program& whole);

// The host launcher `m.launcher` of kernel `m.kernel` (raising its dynamic shared memory
// limit when it needs more than 48 KiB), under `#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)`.
std::string host_launcher(const LaunchMetadata& m);

// Generates the kernel of `program`. UserError for programs or options the GPU path does
// not handle (naming the statement or the limit).
EmittedKernel emit_cuda(const Program& program, const CudaEmitRequest& request);

// The final schedule tree of `program` (`--emit=schedule`) and its isl AST (`--emit=ast`);
// `dumps` prints the trees between the passes as emit_cuda does.
std::string emit_schedule_text(const Program& program, const GpuOptions& options, const PassDumps& dumps = {});
std::string emit_ast_text(const Program& program, const GpuOptions& options, const PassDumps& dumps = {});

// The configuration emit_cuda chooses for `program` (`--emit=config`): the arch, the main loop
// and why (the fallback's reason, an operand copied by threads), the tiles and stages, the
// launch and how each parameter reaches the kernel. One "key: value" line each. `dumps` as for
// emit_cuda.
std::string emit_config_text(const Program& program, const GpuOptions& options, const PassDumps& dumps = {});

}  // namespace polyfuse
