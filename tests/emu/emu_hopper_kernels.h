// Launchers of the planted Hopper bugs of emu_hopper_kernels.cc (one block each).
#pragma once

#include "polyfuse_emu/emulator.h"
#include "runtime/tma/tensor_map_rules.h"

namespace emu_hopper {

enum class WgmmaBug {
  accumulator_read,      // an accumulator read between mma_async and wait_group
  accumulator_write,     // an accumulator written between mma_async and wait_group
  no_proxy_fence,        // operands written by ordinary stores, no fence.proxy.async
  descriptor_outside,    // B's descriptor addresses past the block's shared memory
  misaligned_warpgroup,  // warps 1..4 issue the wgmma
  operands_overwritten_after_own_wait,  // warp 0 rewrites B after its own wait_group only
  operands_overwritten_after_barrier,   // the same after a __syncthreads: correct (the control)
};
// out: 64 x 8 floats; threads: 128 (160 or 256 for misaligned_warpgroup).
polyfuse::emu::Stats launch_wgmma(WgmmaBug bug, float* out, unsigned threads);

enum class TmaBug {
  wrong_parity,               // waits for parity 1 on the load's phase 0, then reads the box
  transaction_count_short,    // expect_tx 16 bytes more than the load delivers
  box_outside_shared,         // the box at offset 1024 of 1024 + box_bytes - 512 bytes
  store_without_proxy_fence,  // ordinary stores, then a TMA store of them without the fence
};
// A 2-D map with a box of box_bytes at (0, 0); buffer: the box copied out (loads) or the box
// to store (store_without_proxy_fence).
polyfuse::emu::Stats launch_tma(TmaBug bug, const polyfuse::tma::TensorMapBytes& map, unsigned char* buffer,
                                int box_bytes);

// Every thread arrives on phase 0, then waits for phase 1 too; out: one int per thread.
polyfuse::emu::Stats launch_wait_for_next_phase(int* out, unsigned threads);

}  // namespace emu_hopper
