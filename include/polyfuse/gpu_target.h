// The typed values of the GPU path's options — the target architecture, the block and
// warp tile shapes, the warp-level MMA shape — and the one parser of each, shared by the
// command line (`--arch sm_80`, `--block 128x128x32`) and the API:
//
//   polyfuse::CompileOptions options;
//   options.block = polyfuse::TileShape{128, 256, 32};
//   options.mma = polyfuse::mma_shape_from_string("m16n8k16");
#pragma once

#include <string>
#include <string_view>

namespace polyfuse {

// GPU architectures polyfuse targets. sm_90a is Hopper with its architecture-specific
// features (wgmma, the PTX ISA's "sm_90a" target): its code runs on compute capability 9.0
// only. A plain or fused GEMM on sm_90a runs the TMA + wgmma kernel; what it does not take
// yet runs the mma.sync main loop of sm_90 (`--emit=config` says why).
enum class Arch { sm_80, sm_86, sm_89, sm_90, sm_90a };

// Warp-level macro-MMA shapes: the two compositions of mma.m8n8k4 (16x16x8, 32x32x8), and
// warp tiles built from mma.m16n8k16 (the fast path on sm_80 and newer).
enum class MmaShape { m16n16k8, m32n32k8, m16n8k16 };

// How the consumer warpgroups of the sm_90a warp-specialised kernel share the output tiles:
// all on each tile together, or two on alternate tiles (one's epilogue under the other's
// main loop).
enum class ConsumerSchedule { cooperative, pingpong };

// How a matmul with f32 operands runs on the GPU path: on tensor cores with TF32 operands
// (mma.sync m16n8k8, inputs rounded to 11 significant bits), with 3xTF32 (each operand split
// into two TF32 parts, three products: close to f32 accuracy, 3x the tensor-core work), or
// exactly in f32 on CUDA cores (a reduction kernel).
enum class F32Matmul { tf32, x3tf32, f32 };

// The thread-block cluster of the sm_90a warp-specialised kernel, in output tiles: 1x1 (none),
// 2x1 (two blocks on vertically adjacent tiles share each B tile by TMA multicast) or 1x2
// (horizontally adjacent tiles share each A tile).
struct ClusterShape {
  int m = 1;
  int n = 1;
  friend bool operator==(const ClusterShape&, const ClusterShape&) = default;
};

// An M×N×K tile.
struct TileShape {
  int m = 0;
  int n = 0;
  int k = 0;
  friend bool operator==(const TileShape&, const TileShape&) = default;
};

// "sm_80" → Arch::sm_80, "sm_90a" → Arch::sm_90a. Throws SourceError naming the accepted values.
Arch arch_from_string(std::string_view text);
// "m16n8k16", "16x16x8" or "32x32x8". Throws SourceError otherwise.
MmaShape mma_shape_from_string(std::string_view text);
// "128x128x32" → {128, 128, 32}: three positive integers. Throws SourceError otherwise.
TileShape tile_shape_from_string(std::string_view text);
// "cooperative" or "pingpong". Throws SourceError otherwise.
ConsumerSchedule consumer_schedule_from_string(std::string_view text);
// "tf32", "3xtf32" or "f32". Throws SourceError otherwise.
F32Matmul f32_matmul_from_string(std::string_view text);
// "1x1", "2x1" or "1x2". Throws SourceError otherwise.
ClusterShape cluster_shape_from_string(std::string_view text);

// The spellings the parsers accept: "sm_80", "m16n8k16", "128x128x32".
std::string to_string(Arch arch);
std::string to_string(MmaShape shape);
std::string to_string(const TileShape& tile);
std::string to_string(ConsumerSchedule schedule);
std::string to_string(F32Matmul mode);
std::string to_string(const ClusterShape& cluster);

}  // namespace polyfuse
