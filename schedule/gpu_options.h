// Options of the GPU path: target architecture, block/warp tiles, macro-MMA shape,
// split-K and pipeline stages — with the limits of each architecture they must respect.
//
//   GpuOptions options = default_gpu_options(Arch::sm_90);
//   options.block = parse_tile_shape("128x128x32", "block");
//   validate_gpu_options(options, ElementSize{2});   // throws UserError naming the limit
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "polyfuse/gpu_target.h"  // Arch, MmaShape, TileShape: the options' typed values

namespace polyfuse {

// Resource limits of one architecture, from the CUDA C Programming Guide's table of
// compute-capability features.
struct ArchLimits {
  int max_shared_bytes_per_block;  // with the opt-in above 48 KiB
  int max_threads_per_block;
  int max_registers_per_thread;
  int registers_per_sm;
};

// Every option of the GPU path.
struct GpuOptions {
  Arch arch = Arch::sm_90;
  TileShape block{128, 128, 32};  // block tile: one thread block computes block.m × block.n
  TileShape warp{64, 64, 32};     // warp tile: warp.k == block.k / split_k
  MmaShape mma = MmaShape::m16n8k16;
  int split_k = 1;  // p-way intra-block split-K over warps (1, 2 or 4)
  // Shared-memory stages per operand (the cp.async ring): 1 = no prefetch; S = 2..5 = a ring
  // of S stages, S - 1 k-steps' copies in flight (max_stages). Default 2 on every arch:
  // the default 128x128x32 tiles take 16 KiB per stage, so 3 and 4 fit everywhere too,
  // but the default only changes with GPU timings that show it faster.
  int stages = 2;
  // The grid's block order (codegen/kernel_grid.h's tile_group): consecutive blocks walk
  // groups of `group` tile rows column by column (kernels/cuda's pf::grouped_tile), so the
  // panels of A and B they read stay in L2; 1 is row-major order. Unset: the default rule
  // (8 when the grid has at least 8 tile rows or an unbound row count, else 1). The sm_90a
  // persistent kernel's tile scheduler walks its tiles in the same groups (unset: 8).
  std::optional<int> group;
  // The sm_90a warp-specialised kernel's consumer warpgroups: on each tile together or on
  // alternate tiles. Unset: cooperative (codegen/hopper_gemm_kernel.h's hopper_default_consumers).
  // Other kernels have no consumer warpgroups: set, it is refused there.
  std::optional<ConsumerSchedule> consumer_schedule;
  // The sm_90a warp-specialised kernel's thread-block cluster (codegen/hopper_gemm_kernel.h's
  // HopperTileSchedule): 1x1 (none, the default until GPU timings show a cluster faster), 2x1
  // or 1x2. Other kernels have no clusters: anything but 1x1 is refused there.
  ClusterShape cluster;
  // Matmuls with f32 operands: TF32 or 3xTF32 tensor cores, or exact f32 (a reduction kernel).
  F32Matmul f32_matmul = F32Matmul::tf32;
  // The warp tile was not chosen by the user: the code generator may shrink it (halving
  // N, then M) until a fused kernel's register tiles fit the registers per thread. True in
  // the defaults (every caller, not only the CLI, gets the fitted tile); false once a user
  // sets `warp`.
  bool choose_warp = true;
  // The user set the block tile (gpu_options_from_choices: a flag or the API's option), even
  // to the default: a row chain then joins the matmul kernel only if that tile spans the row
  // (schedule/fused_row_chain.h), rather than with a tile it picks.
  bool block_chosen = false;
};

// The options a user chose (command-line flags, the API's CompileOptions), already
// parsed; unset values and zeros mean "the default".
struct GpuChoices {
  Arch arch = Arch::sm_90;
  std::optional<TileShape> block, warp;
  std::optional<MmaShape> mma;
  int split_k = 0;
  int stages = 0;
  std::optional<int> group;  // tile rows per group of the block order; unset: the rule
  std::optional<ConsumerSchedule> consumer_schedule;  // sm_90a warp-specialised kernel; unset: the rule
  F32Matmul f32_matmul = F32Matmul::tf32;
  ClusterShape cluster;  // sm_90a warp-specialised kernel; 1x1: none
};

// The arch's defaults overridden by `choices`. Without a warp tile: min(64, block) in M
// and N, block K / split-K in K, and choose_warp (the code generator may shrink it to fit
// the registers). The limits are checked at compile time (validate_gpu_options).
GpuOptions gpu_options_from_choices(const GpuChoices& choices);

// The parsers of the options' values (public: polyfuse/gpu_target.h's *_from_string, which
// wrap these). Each throws UserError naming the option by its API name (`arch`, `mma`, or
// `option` for a tile) and the accepted spellings.
// "sm_80" → Arch::sm_80.
Arch parse_arch(std::string_view text);
// True for the targets with wgmma.mma_async (sm_90a).
bool has_wgmma(Arch arch);
// The architecture's compute capability as a number (sm_86 → 86, sm_90a → 90).
int compute_capability(Arch arch);
// Shared memory, thread and register limits of `arch`.
ArchLimits arch_limits(Arch arch);

// "cooperative" | "pingpong" → ConsumerSchedule.
ConsumerSchedule parse_consumer_schedule(std::string_view text);

// "1x1" | "2x1" | "1x2" → ClusterShape.
ClusterShape parse_cluster_shape(std::string_view text);

// "tf32" | "3xtf32" | "f32" → F32Matmul.
F32Matmul parse_f32_matmul(std::string_view text);
// "16x16x8" | "32x32x8" | "m16n8k16" → MmaShape.
MmaShape parse_mma_shape(std::string_view text);
// The M×N×K of one warp-level macro-MMA instruction group (m16n8k16 → 16×8×16).
TileShape mma_tile(MmaShape shape);
// The accumulator fragment a lane's values are grouped in: 16×8 for m16n8k16, the 16×16
// piece of the m8n8k4 macro-MMAs (k = 0). Epilogues work on one fragment per instance.
TileShape accumulator_fragment(MmaShape shape);
// True when `shape` can be compiled for `arch` (all shapes can for sm_80 and newer).
bool mma_supported(MmaShape shape, Arch arch);

// "128x128x32" → {128, 128, 32}; `option` is the API name of the option (`block`, `warp`)
// for the error message (diagnostics.h: options in messages).
TileShape parse_tile_shape(std::string_view text, std::string_view option);

// Defaults for large fp16 GEMMs on `arch` (H100 for sm_90): 128×128×32 blocks of four
// 64×64 warps, m16n8k16, no split-K, a ring of 2 shared stages (see GpuOptions::stages).
GpuOptions default_gpu_options(Arch arch);

// Threads of one block: 32 × (block.m / warp.m) × (block.n / warp.n) × split_k.
int threads_per_block(const GpuOptions& options);
// Dynamic shared memory of one block in bytes: `stages` A and B tiles of
// `element_bytes` elements, or the accumulator reorder scratch of 1 KiB per warp if larger
// (it reuses the tiles after the last k-step).
int shared_bytes_per_block(const GpuOptions& options, int element_bytes);
// The most shared-memory stages of the cp.async ring (`stages` accepts 1..max_stages).
inline constexpr int max_stages = 5;

// Registers of accumulator fragments per thread (f32), a lower bound of the kernel's use.
int accumulator_registers_per_thread(const GpuOptions& options);

// Checks that every tile extent is positive, divisibility (block by warp, warp by MMA, block.k by split_k), split_k ∈ {1,2,4},
// 1 <= stages <= max_stages, group >= 1 when set, the MMA shape against the arch, and the shared-memory, thread and
// register limits. Throws UserError that names the option, the limit and by how much it
// is exceeded.
void validate_gpu_options(const GpuOptions& options, int element_bytes);

}  // namespace polyfuse
