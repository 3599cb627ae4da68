// The autotuner's static facts and cost model: what ptxas says about a compiled candidate
// (`--ptxas-options=-v` in NVRTC's log), the occupancy that follows, and the score that ranks
// the candidates when they cannot be timed (and orders them when they can).
//
// Occupancy (blocks per SM) is the least of
//   registers:      registers_per_sm / (threads x registers, warps rounded to 256-register units)
//   shared memory:  shared_per_sm / (static + dynamic bytes + 1 KiB the driver reserves per block)
//   threads:        threads_per_sm / threads, and at most max_blocks_per_sm blocks
// from the CUDA C Programming Guide's table of compute capabilities (sm_80: 164 KiB of shared
// memory and 2048 threads per SM; sm_86/sm_89: 100 KiB, 1536; sm_90: 228 KiB, 2048; 32 blocks,
// 64K registers). A persistent kernel (the sm_90a TMA + wgmma one, __launch_bounds__(.., 1))
// runs one block per SM.
//
// A candidate is dropped when it spills (any spill store or load), or when no block fits on
// an SM. The rest are ranked by
//   score = sqrt(output elements per block tile) x wave efficiency x latency hiding
// - sqrt(tile elements): a block's operand reuse (FLOPs per byte loaded grows with the tile's
//   side: bm bn / (bm + bn) for a bm x bn tile);
// - wave efficiency = tiles / (waves x slots), slots = SMs x b, waves = ceil(tiles / slots),
//   b = min(blocks per SM, ceil(tiles / SMs)) (the blocks there are tiles for): the share of
//   the slots that hold a tile, over every wave;
// - latency hiding = min(1, (warps x b / 8) x ring) with ring 1 for a ring of 3 or more
//   stages (and the TMA kernel's own ring), 0.9 for 2, 0.6 for 1 (no prefetch).
// SM counts are those of the reference parts (A100 108, RTX 3090/4090-class 82/128, H100 SXM
// 132) or the present GPU's. The model is not calibrated against GPU timings: it is a
// tie-breaker that prefers larger tiles that fill the machine, not a prediction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "polyfuse/gpu_target.h"

namespace polyfuse::api {

// What ptxas reported for one kernel.
struct PtxasFacts {
  int registers = 0;
  int spill_store_bytes = 0;
  int spill_load_bytes = 0;
  int stack_frame_bytes = 0;
  int static_shared_bytes = 0;
};

// The facts of `kernel` in an NVRTC log compiled with --ptxas-options=-v, or nullopt when the
// log has no "Compiling entry function '<kernel>'" block.
std::optional<PtxasFacts> parse_ptxas_facts(const std::string& log, const std::string& kernel);

// Per-SM resources of an architecture (the occupancy calculator's table).
struct SmResources {
  int shared_bytes = 0;
  int threads = 0;
  int registers = 65536;
  int max_blocks = 32;
  int sms = 0;  // the reference part's SM count
};
SmResources sm_resources(Arch arch);

// Blocks of `threads` threads, `registers` registers each and `shared_bytes` of shared memory
// that fit on one SM of `sm` (0 when none does).
int blocks_per_sm(const SmResources& sm, int threads, int registers, int shared_bytes);

// The static score of a kernel of `tiles` block tiles of `tile_elements` output elements each,
// `warps` warps a block, `blocks` blocks per SM, a ring of `stages` (0: the kernel's own ring),
// on `sms` SMs (see the file comment).
double static_score(std::int64_t tiles, double tile_elements, int warps, int blocks, int stages, int sms);

}  // namespace polyfuse::api
